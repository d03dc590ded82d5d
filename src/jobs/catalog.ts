/**
 * Every kind of durable job, with its payload and its budget. A job is inserted and handled only
 * through these kinds, so the compiler checks that the writer and the handler agree on the payload.
 */
export interface JobPayloads {
  /** Capture a delayed-capture authorization at its capture time. */
  'payment.capture': { paymentId: number; merchantId: number };
  /** Expire a payment request still open at its expiresAt. */
  'payment_request.expire': { paymentRequestId: number; merchantId: number };
  /** Run the handlers of one stored provider callback. */
  'callback.process': { callbackEventId: number };
  /** Send one e-mail notice to a merchant's users (modules/notifications). */
  'notice.send': { noticeId: number };
}

export type JobKind = keyof JobPayloads;

export interface JobBudget {
  /** Attempts before the job is marked failed. */
  maxAttempts: number;
  /** A claim older than this belongs to a crashed worker and is taken over. */
  timeoutSeconds: number;
}

export const JOB_CATALOG: Record<JobKind, JobBudget> = {
  'payment.capture': { maxAttempts: 20, timeoutSeconds: 60 },
  'payment_request.expire': { maxAttempts: 10, timeoutSeconds: 30 },
  'callback.process': { maxAttempts: 10, timeoutSeconds: 60 },
  'notice.send': { maxAttempts: 10, timeoutSeconds: 60 },
};

/**
 * At most one job per key while its row is kept: "<kind>:<id of the object it works on>". A completed job
 * is deleted after JOB_RETENTION_DAYS, freeing its key; nothing inserts one again (each job is written once,
 * for a new object or its one transition to authorized), and a handler returns early on a final record anyway.
 */
export const dedupeKey = (kind: JobKind, id: number | '') => `${kind}:${id}`;
