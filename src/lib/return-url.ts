import { invalidFormat } from '../errors.js';

/**
 * Return URLs (successUrl, failureUrl) are where a payer's browser is sent: a Location header and a link
 * on a page. Only an absolute http(s) URL without credentials is one (never javascript:, data: or text
 * that is no URL), and a live key's must be https (docs/decisions.md "Return URLs").
 */

/** The value as an http(s) URL, or undefined when it is none: for values stored before the rule, at use. */
export function httpUrlOf(value: unknown): URL | undefined {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  return url;
}

/** Refuses a given return URL that breaks the rule, naming its field (400 INVALID_FORMAT). */
export function checkReturnUrl(field: string, value: string | null | undefined, livemode: boolean): void {
  if (value === null || value === undefined) return;
  const url = httpUrlOf(value);
  if (!url) throw invalidFormat(field, value, `${field} must be an absolute http or https URL without credentials`);
  if (livemode && url.protocol !== 'https:')
    throw invalidFormat(field, value, `${field} must use https with a live API key`);
}
