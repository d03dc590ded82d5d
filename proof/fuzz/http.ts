/** One raw HTTP exchange of the proof suites (bytes in, parsed answer out). */
export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

export interface RawResponse {
  status: number;
  contentType: string | null;
  headers: Headers;
  text: string;
  body: unknown;
}

export async function send(baseUrl: string, request: RawRequest, signal?: AbortSignal): Promise<RawResponse> {
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body as BodyInit | undefined,
    signal,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    headers: response.headers,
    text,
    body,
  };
}

/** JSON call with an API key: the fixtures' way of building the world the fuzzer then probes. */
export async function json(
  baseUrl: string,
  method: string,
  path: string,
  apiKey: string | undefined,
  body?: unknown,
): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  if (apiKey) headers['x-api-key'] = apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return send(baseUrl, { method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

export async function expectOk(response: Promise<RawResponse>, what: string): Promise<any> {
  const res = await response;
  if (res.status !== 200) throw new Error(`${what}: expected 200, got ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}
