import { Type } from '@sinclair/typebox';
import { JOB_CATALOG } from '../../jobs/catalog.js';
import { Page, PageQuery } from '../../lib/pagination.js';
import { Id, nullable } from '../../lib/schema.js';

// A string, not a union of the catalog's kinds: a failed job of a kind since removed must still be listed.
const Kind = Type.String({ description: `What the job does: ${Object.keys(JOB_CATALOG).join(', ')}` });

export const Job = Type.Object({
  id: Type.Integer(),
  kind: Kind,
  merchantId: nullable(Type.Integer()),
  status: Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('failed')]),
  attempts: Type.Integer({ minimum: 0, description: 'Attempts made since it was queued or last retried' }),
  maxAttempts: Type.Integer({ description: 'Attempts before it is marked failed' }),
  payload: Type.Record(Type.String(), Type.Integer(), {
    description: 'The ids it works on (paymentId, paymentRequestId, noticeId…)',
  }),
  lastError: nullable(Type.String({ description: 'Why its last attempt failed' })),
  runAt: Type.String({ format: 'date-time', description: 'When it is (or was last) due' }),
  failedAt: nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
});

export const FailedJobsQuery = Type.Object({ ...PageQuery });
export const FailedJobPage = Page(Job);
export const JobParams = Type.Object({ jobId: Id('Job id') });
