import { scrub } from '../../http/logging.js';
import type { JobRow } from './repository.js';

/** Longer error texts are cut: a stack or a whole answer body is for the log, not the list. */
const ERROR_CHARS = 500;

export type JobStatus = 'pending' | 'completed' | 'failed';

export const jobStatus = (row: Pick<JobRow, 'completed_at' | 'failed_at'>): JobStatus =>
  row.failed_at ? 'failed' : row.completed_at ? 'completed' : 'pending';

/**
 * A job as the panel and the CLI show it. The payload is summarised to its numeric members: the catalog's
 * payloads are ids (jobs/catalog.ts; a job payload never carries card data or a secret), and a member of
 * another type is left out rather than trusted, so nothing a future kind carries reaches a screen. The error is
 * scrubbed by the logs' patterns, as its log line was.
 */
export function presentJob(row: JobRow) {
  return {
    id: row.id,
    kind: row.kind,
    merchantId: row.merchant_id,
    status: jobStatus(row),
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    payload: idsOf(row.payload),
    lastError: row.last_error === null ? null : scrub(row.last_error).slice(0, ERROR_CHARS),
    runAt: row.run_at.toISOString(),
    failedAt: row.failed_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
  };
}

function idsOf(payload: unknown): Record<string, number> {
  if (typeof payload !== 'object' || payload === null) return {};
  return Object.fromEntries(
    Object.entries(payload).filter((entry): entry is [string, number] => Number.isSafeInteger(entry[1])),
  );
}
