import type { FastifyRequest } from 'fastify';
import { requireMerchant } from '../../http/credentials.js';

const SANDBOX_CONTROLS = ['x-sandbox-callback', 'x-sandbox-hang-ms'];

/** The sandbox test-control headers of a test-mode call, forwarded to the processor. */
export function sandboxControls(request: FastifyRequest): Record<string, string> {
  const testHeaders: Record<string, string> = {};
  if (requireMerchant(request).mode === 'test') {
    for (const name of SANDBOX_CONTROLS) {
      const value = request.headers[name];
      if (typeof value === 'string') testHeaders[name] = value;
    }
  }
  return testHeaders;
}
