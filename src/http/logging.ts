import pino, { type DestinationStream, type LoggerOptions } from 'pino';

/**
 * Secrets never reach a log line: known paths are redacted structurally, and every line is
 * scrubbed by pattern as a second net (a key or PAN inside a message or an error string).
 */
const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-checkout-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.cvv',
  '*.number',
  '*.token',
  '*.apiKey',
  '*.accessToken',
  '*.csrfToken',
  '*.secret',
  '*.authenticationValue',
  // A processor connection's credentials (modules/processor-connections).
  '*.credentials',
  '*.secretKey',
  '*.webhookSecret',
  '*.hmacKey',
];

const PATTERNS: Array<[RegExp, string]> = [
  [/svc_(test|live)_sk_[0-9A-Za-z]+/g, 'svc_$1_sk_[REDACTED]'],
  // Stripe secret and restricted keys and webhook signing secrets, as a processor connection holds them.
  [/\b(sk|rk)_(test|live)_[0-9A-Za-z]+/g, '$1_$2_[REDACTED]'],
  [/\bwhsec_[0-9A-Za-z]+/g, 'whsec_[REDACTED]'],
  [/eyJ[\w-]+\.[\w-]+\.[\w-]*/g, '[REDACTED_JWT]'],
  [/cst_[0-9A-Za-z_-]+/g, 'cst_[REDACTED]'],
  [/pst_[0-9A-Za-z]+/g, 'pst_[REDACTED]'],
  [/inv_[0-9A-Za-z_-]+/g, 'inv_[REDACTED]'],
  [/\b(pwr|sil)_[\w-]{43}/g, '$1_[REDACTED]'],
  [/("cvv"\s*:\s*)"[^"]*"/gi, '$1"[REDACTED]"'],
  [/([?&](?:apiKey|token)=)[^&\s"]+/g, '$1[REDACTED]'],
];

/** Card numbers: 12–19 digit runs. */
const CARD_NUMBER = /(?<![\d.])\d{12,19}(?![\d.])/g;
const UUID_HEAD = /(?<![\da-f])[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-$/i;

/**
 * Keeps the last group of a whole UUID (12 hex characters, all digits in 1 of ~280 UUIDs): an
 * identifier (an event id, a request id), not a card. Looked at only for a match, so a line without
 * a digit run costs what the plain pattern costs.
 */
function redactCardNumber(match: string, offset: number, line: string): string {
  const uuidTail =
    match.length === 12 &&
    !/[\da-f]/i.test(line[offset + 12] ?? '') &&
    UUID_HEAD.test(line.slice(Math.max(0, offset - 25), offset));
  return uuidTail ? match : '[REDACTED_PAN]';
}

export function scrub(line: string): string {
  let out = line;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out.replace(CARD_NUMBER, redactCardNumber);
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    // ISO time keeps long digit runs (epoch millis) out of lines, so the PAN pattern has no false hits.
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: { streamWrite: scrub },
    serializers: {
      req: (req: { method?: string; url?: string }) => ({ method: req.method, url: scrub(req.url ?? '') }),
      res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    },
  };
}

export function createLogger(level: string, destination?: DestinationStream) {
  return pino(loggerOptions(level), destination ?? pino.destination({ fd: 1, sync: false }));
}
