/**
 * The gateway's one error vocabulary. Domain code throws AppError with a name from this
 * closed set; src/http/errors.ts is the only place that turns it into an HTTP response.
 * `code` is the machine code clients match on (the spec's table where it has one).
 */
export const ERRORS = {
  // Spec error guide
  INVALID_API_KEY: { status: 401, code: 'INVALID_API_KEY', title: 'Invalid API key' },
  INSUFFICIENT_PERMISSIONS: { status: 403, code: 'INSUFFICIENT_PERMISSIONS', title: 'Insufficient permissions' },
  UNAUTHORIZED: { status: 401, code: 'AUTH001', title: 'Unauthorized' },
  FORBIDDEN: { status: 403, code: 'AUTH002', title: 'Forbidden' },
  VALIDATION_ERROR: { status: 400, code: 'VAL001', title: 'Required field missing' },
  INVALID_FORMAT: { status: 400, code: 'VAL002', title: 'Invalid field format' },
  PAYMENT_DECLINED: { status: 402, code: 'P001', title: 'Payment declined' },
  CARD_DECLINED: { status: 402, code: 'PAY001', title: 'Card declined' },
  INVALID_CARD: { status: 400, code: 'PAY002', title: 'Invalid card' },
  THREEDS_FAILED: { status: 402, code: 'PAY003', title: '3-D Secure authentication failed' },
  INVALID_UPI_ID: { status: 400, code: 'UPI001', title: 'Invalid UPI id' },
  UPI_TRANSACTION_FAILED: { status: 402, code: 'UPI002', title: 'UPI transaction failed' },
  INVALID_WEBHOOK_SIGNATURE: { status: 401, code: 'WH001', title: 'Invalid webhook signature' },
  WEBHOOK_TIMEOUT: { status: 504, code: 'WH002', title: 'Webhook time-out' },
  RATE_LIMIT_EXCEEDED: { status: 429, code: 'RATE001', title: 'Rate limit exceeded' },
  // The gateway's own
  INVALID_CREDENTIALS: { status: 401, code: 'AUTH003', title: 'Invalid e-mail or password' },
  ACCOUNT_LOCKED: { status: 429, code: 'AUTH004', title: 'Account temporarily locked' },
  SESSION_EXPIRED: { status: 401, code: 'AUTH005', title: 'Control-panel session expired' },
  LINK_INVALID: { status: 410, code: 'AUTH006', title: 'Password-reset or sign-in link not valid' },
  INVALID_JSON: { status: 400, code: 'VAL003', title: 'Malformed JSON body' },
  JSON_TOO_COMPLEX: { status: 400, code: 'VAL004', title: 'JSON body nested too deeply or with too many members' },
  NOT_FOUND: { status: 404, code: 'NOT_FOUND', title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, code: 'METHOD_NOT_ALLOWED', title: 'Method not allowed' },
  CONFLICT: { status: 409, code: 'CONFLICT', title: 'Conflict' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, code: 'IDEM001', title: 'Idempotency key in use' },
  IDEMPOTENCY_KEY_MISMATCH: { status: 422, code: 'IDEM002', title: 'Idempotency key reused with a different request' },
  API_VERSION_GONE: { status: 410, code: 'VERSION_GONE', title: 'API version removed' },
  UNSUPPORTED_API_VERSION: { status: 400, code: 'VERSION001', title: 'Unsupported API version' },
  PAYLOAD_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', title: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', title: 'Unsupported content type' },
  HTTPS_REQUIRED: { status: 403, code: 'HTTPS_REQUIRED', title: 'HTTPS required' },
  PROCESSOR_UNAVAILABLE: { status: 502, code: 'PROCESSOR_UNAVAILABLE', title: 'Processor unavailable' },
  SERVICE_UNAVAILABLE: { status: 503, code: 'SERVICE_UNAVAILABLE', title: 'Service unavailable' },
  INTERNAL_ERROR: { status: 500, code: 'INTERNAL_ERROR', title: 'Internal server error' },
  WEBHOOK_TARGET_FORBIDDEN: { status: 400, code: 'WH003', title: 'Notification target not allowed' },
  WEBHOOK_DELIVERY_FAILED: { status: 502, code: 'WH004', title: 'Notification not accepted' },
  NOTIFY_URL_NOT_SET: { status: 409, code: 'WH005', title: 'No notification URL' },
  INVITATION_INVALID: { status: 410, code: 'TEAM001', title: 'Invitation link not valid' },
  EMAIL_ALREADY_REGISTERED: { status: 409, code: 'TEAM002', title: 'E-mail address already registered' },
  LAST_OWNER: { status: 409, code: 'TEAM003', title: 'A merchant keeps at least one owner' },
} as const satisfies Record<string, { status: number; code: string; title: string }>;

export type ErrorName = keyof typeof ERRORS;

export interface AppErrorOptions {
  details?: Record<string, unknown>;
  /** Extra response headers (Allow, Set-Cookie, …). */
  headers?: Record<string, string>;
  /** When to come back: sent as Retry-After (a 429, a 409 about a request under way, a 503). */
  retryAfterSeconds?: number;
  /** Extension members of the problem record (paymentId of a decline). */
  extensions?: Record<string, unknown>;
  /**
   * An answer about a moment (a payment still processing), not about the request: a retry may well
   * get another, so an idempotency key never keeps it.
   */
  transient?: boolean;
}

export class AppError extends Error {
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;
  readonly extensions?: Record<string, unknown>;
  readonly transient: boolean;

  constructor(
    readonly error: ErrorName,
    message: string,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.details = options.details;
    this.headers =
      options.retryAfterSeconds === undefined
        ? options.headers
        : { ...options.headers, 'Retry-After': String(options.retryAfterSeconds) };
    this.extensions = options.extensions;
    this.transient = options.transient ?? false;
  }

  get status(): number {
    return ERRORS[this.error].status;
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string, details?: Record<string, unknown>, options: { transient?: boolean } = {}) =>
  new AppError('CONFLICT', message, { details, ...options });
export const invalidFormat = (field: string, value: unknown, message: string) =>
  new AppError('INVALID_FORMAT', message, { details: { field, value } });
