import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

/**
 * The control panel's session cookie and the checks that go with it (docs/security.md, "Control-panel
 * session"): HttpOnly, SameSite=Strict, Path=/ (the panel calls the merchant API with it), Secure and
 * the __Host- prefix when the gateway is reached over https.
 */
export const PANEL_MODE_HEADER = 'x-panel-mode';
export const CSRF_HEADER = 'x-csrf-token';

const secure = (config: Config) => new URL(config.publicUrl).protocol === 'https:';

export const panelCookieName = (config: Config) => (secure(config) ? '__Host-svc_panel' : 'svc_panel');

export function panelCookie(config: Config, token: string, maxAgeSeconds: number): string {
  const flags = ['Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${maxAgeSeconds}`];
  if (secure(config)) flags.push('Secure');
  return `${panelCookieName(config)}=${token}; ${flags.join('; ')}`;
}

/** Sent on sign-out and with every "session expired": the browser forgets the dead token. */
export const clearedPanelCookie = (config: Config) => panelCookie(config, '', 0);

/** The session token the browser sent, if any. */
export function panelCookieOf(request: FastifyRequest, config: Config): string | undefined {
  const name = `${panelCookieName(config)}=`;
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const trimmed = part.trim();
    if (trimmed.startsWith(name)) return trimmed.slice(name.length) || undefined;
  }
  return undefined;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const changesState = (request: FastifyRequest) => !SAFE_METHODS.has(request.method);

/**
 * A browser always sends Origin on a cross-origin change and on every fetch that changes state: it must
 * be the gateway's own (PUBLIC_URL, or the address the request came to when PUBLIC_URL is not set).
 * Absent (a client that is not a browser), the CSRF token still stands guard.
 */
export function assertSameOrigin(request: FastifyRequest, config: Config): void {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const own = [new URL(config.publicUrl).origin];
  if (!config.publicUrlGiven) own.push(`${request.protocol}://${request.host}`);
  if (!own.includes(origin)) {
    throw new AppError('FORBIDDEN', 'Control-panel changes are only accepted from the control panel’s own origin');
  }
}
