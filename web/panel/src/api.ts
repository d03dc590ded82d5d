/**
 * The panel's only way to the gateway: its session cookie (HttpOnly, sent by the browser), the mode of
 * this request (X-Panel-Mode) and, on every change, the session's CSRF token (X-CSRF-Token). No key or
 * token is ever kept in storage.
 */
import type { Session } from '../../shared/api-types.js';

export type Mode = 'test' | 'live';

/** An answer that is not 2xx. Both error bodies: RFC 9457 problems (`detail`) and the error guide (`message`). */
export class ApiError extends Error {
  readonly error: string | undefined;
  readonly details: Record<string, unknown>;

  constructor(
    readonly status: number,
    body: Record<string, unknown>,
  ) {
    const text = body.detail ?? body.message;
    super(typeof text === 'string' ? text : `The gateway answered ${status}`);
    this.error = typeof body.error === 'string' ? body.error : undefined;
    this.details = (body.details ?? {}) as Record<string, unknown>;
  }
}

const MODE_KEY = 'panel-mode';

/** A viewer reads only; the gateway refuses its changes, the panel does not offer them. */
export const canChange = (session: Session) => session.user.role !== 'viewer';

export const panel = {
  csrf: '',
  mode: sessionStorage.getItem(MODE_KEY) === 'live' ? ('live' as Mode) : ('test' as Mode),
  /** Called when a signed-in request comes back 401: the session expired or was signed out elsewhere. */
  onExpired: (_error: ApiError) => {},
};

export function setMode(mode: Mode): void {
  panel.mode = mode;
  sessionStorage.setItem(MODE_KEY, mode);
}

/** One request with the panel's credentials; an answer that is not 2xx is thrown as an ApiError. */
async function send(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body: unknown,
  options: { mode?: Mode; signedIn?: boolean },
): Promise<Response> {
  const headers: Record<string, string> = { 'X-Panel-Mode': options.mode ?? panel.mode };
  if (method !== 'GET') headers['X-CSRF-Token'] = panel.csrf;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (!res.ok) {
    const error = new ApiError(res.status, (parsed(await res.text()) ?? {}) as Record<string, unknown>);
    if (res.status === 401 && options.signedIn !== false) panel.onExpired(error);
    throw error;
  }
  return res;
}

function parsed(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return { message: text };
  }
}

export async function call<T = unknown>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  options: { mode?: Mode; signedIn?: boolean } = {},
): Promise<T> {
  const res = await send(method, path, body, options);
  return parsed(await res.text()) as T;
}

/**
 * Saves a file the gateway streams (a CSV export) under the name it gives. Fetched, not linked: a plain
 * link cannot carry the mode header (docs/decisions.md "Panel CSV export").
 */
export async function download(path: string): Promise<string> {
  const res = await send('GET', path, undefined, {});
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'export.csv';
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser reads the blob after the click returns: free it once the download has surely started.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return name;
}

/** Major units as the API gives them, formatted for the reader. */
export const money = (amount: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
