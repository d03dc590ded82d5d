import { Pool, errors } from 'undici';

export interface JsonResponse {
  status: number;
  /** The parsed JSON answer; each adapter reads it through its own typed view. */
  body: unknown;
}

export class ProcessorTimeoutError extends Error {}

/**
 * Keep-alive HTTP client to one processor host. Every call has a hard time-out; the caller decides
 * what an unknown outcome means (for an authorization: pending, reconciled later).
 */
export function createJsonClient(baseUrl: string, timeoutMs: number) {
  const pool = new Pool(baseUrl, { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 });
  const request = async (
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse> => {
    try {
      const response = await pool.request({
        method,
        path,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await response.body.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = { error: 'invalid_json' };
      }
      return { status: response.statusCode, body: parsed };
    } catch (error) {
      if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
        throw new ProcessorTimeoutError(`processor did not answer within ${timeoutMs} ms`);
      }
      throw error;
    }
  };
  return {
    get: (path: string) => request('GET', path),
    post: (path: string, body: unknown, headers?: Record<string, string>) => request('POST', path, body, headers),
    close: () => pool.close(),
  };
}
