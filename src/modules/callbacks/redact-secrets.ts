/**
 * Members of a received callback that are never stored or shown in clear: the 3-D Secure
 * authentication value under its names (CAVV, AAV, TAVV), a card security code a test call may
 * carry, and the client secret of a PaymentIntent in Stripe's events (a browser confirms with it). Compared case-insensitively, at any depth. Processing needs the authentication value of a
 * 3-D Secure result, so the top-level ones are handed back to be sealed (record-callback.ts).
 */
const SECRET_MEMBERS = new Set(['authenticationvalue', 'cavv', 'aav', 'tavv', 'cvv', 'cvc', 'client_secret']);
export const REDACTED = '[redacted]';

const isSecret = (name: string) => SECRET_MEMBERS.has(name.toLowerCase());

export interface RedactedText {
  /** The text as received when it held no secret; otherwise the same document with each secret replaced. */
  text: string;
  /** The top-level secret members' values, when there were any. */
  secrets: Record<string, unknown> | undefined;
}

/** A JSON text with its secret members redacted (text that is not JSON is returned as it is). */
export function redactJson(text: string): RedactedText {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { text, secrets: undefined };
  }
  if (!holdsSecret(document)) return { text, secrets: undefined };
  const secrets = isRecord(document)
    ? Object.fromEntries(Object.entries(document).filter(([name]) => isSecret(name)))
    : undefined;
  return { text: JSON.stringify(redacted(document)), secrets };
}

/** A form body or query string with the values of its secret parameters redacted. */
export function redactForm(text: string): string {
  const params = new URLSearchParams(text);
  if (![...params.keys()].some(isSecret)) return text;
  for (const name of new Set(params.keys())) if (isSecret(name)) params.set(name, REDACTED);
  return params.toString();
}

/** A copy of a parsed value with every secret member's value replaced. */
export function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [name, isSecret(name) ? REDACTED : redacted(member)]),
  );
}

function holdsSecret(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsSecret);
  if (!isRecord(value)) return false;
  return Object.entries(value).some(([name, member]) => isSecret(name) || holdsSecret(member));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
