/**
 * The panel's only way to the gateway: its session cookie (HttpOnly, sent by the browser), the mode of
 * this request (X-Panel-Mode) and, on every change, the session's CSRF token (X-CSRF-Token). No key or
 * token is ever kept in storage.
 */
export type Mode = 'test' | 'live';

export interface Session {
  user: { id: number; email: string; role: 'owner' | 'developer' | 'viewer' };
  merchant: { id: number; name: string };
  csrfToken: string;
  checkoutUrl: string;
  expiresAt: string;
}

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

export async function call<T = unknown>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  options: { mode?: Mode; signedIn?: boolean } = {},
): Promise<T> {
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
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = { message: text };
  }
  if (!res.ok) {
    const error = new ApiError(res.status, (json ?? {}) as Record<string, unknown>);
    if (res.status === 401 && options.signedIn !== false) panel.onExpired(error);
    throw error;
  }
  return json as T;
}

/** Major units as the API gives them, formatted for the reader. */
export const money = (amount: number, currency: string) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount);

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
