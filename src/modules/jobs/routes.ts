import type { JobsContext } from './context.js';
import type { App } from '../../http/fastify-app.js';
import { inAuditedTransaction } from '../audit/index.js';
import { panelSessionOf } from '../../http/credentials.js';
import type { UserRole } from '../merchants/index.js';
import { listFailedJobs } from './list-failed-jobs.js';
import { retryJob } from './retry-job.js';
import { FailedJobPage, FailedJobsQuery, Job, JobParams } from './schemas.js';

const tags = ['Control panel'];
const RETRYING_ROLES: readonly UserRole[] = ['owner', 'developer'];

/**
 * The merchant's failed jobs in the panel's Developers page: every role reads them, owners and developers
 * retry them (RETRYING_ROLES; audited). Jobs of no merchant (processing a provider's
 * callback) are the operator's, through the CLI.
 */
export function jobRoutes(app: App, ctx: JobsContext): void {
  app.get(
    '/jobs/failed',
    {
      schema: {
        operationId: 'listFailedJobs',
        summary: "The merchant's jobs that spent their attempts, newest first",
        description:
          'Background work the gateway owes the merchant (a scheduled capture, an expiry, an e-mail notice) that ' +
          'failed on every attempt. It stays here until it is retried.',
        tags,
        querystring: FailedJobsQuery,
        response: { 200: FailedJobPage },
      },
      config: { auth: 'session' },
    },
    async (request) =>
      listFailedJobs(ctx, { scope: { merchantId: panelSessionOf(request).merchantId }, ...request.query }),
  );

  app.post(
    '/jobs/:jobId/retry',
    {
      schema: {
        operationId: 'retryJob',
        summary: 'Run a failed job again now, with its whole attempt budget (owners and developers)',
        description: 'Only a failed job: 409 CONFLICT with details.status for a pending or completed one.',
        tags,
        params: JobParams,
        response: { 200: Job },
      },
      config: { auth: 'session', roles: RETRYING_ROLES },
    },
    async (request) =>
      inAuditedTransaction(ctx, request, 'job.retried', (trx) =>
        retryJob(trx, { scope: { merchantId: panelSessionOf(request).merchantId }, jobId: request.params.jobId }),
      ),
  );
}
