import fc from 'fast-check';
import { applyViolation, arbitraryOf, violationsOf, type JsonSchema, type Violation } from './arbitraries.js';
import { operationsOf, responseChecker, type Operation, type Parameter } from './contract.js';
import { send, type RawRequest } from './http.js';
import { World, type FuzzTarget } from './world.js';

export type ProbeKind = 'valid' | 'violation' | 'hostile';

export interface Failure {
  operation: string;
  kind: ProbeKind;
  probe: string;
  status: number;
  problem: string;
}

export interface FuzzSummary {
  seed: number;
  operations: number;
  /** Probes sent (the world's setup requests are counted apart). */
  sent: number;
  setupRequests: number;
  byKind: Record<ProbeKind, number>;
  byStatus: Record<string, number>;
  /** Every failure, grouped: "operation | kind | problem" → count (and the first example). */
  failures: Map<string, { count: number; example: Failure }>;
  failureCount: number;
  elapsedMs: number;
}

/** A small seeded generator (mulberry32) for the choices around fast-check's samples. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sample = <T>(arbitrary: fc.Arbitrary<T>, seed: number): T => fc.sample(arbitrary, { seed, numRuns: 1 })[0];

/** The body branch the fixtures build: the first of a union (the card branch of h2h). */
const bodySchemaOf = (op: Operation): JsonSchema | undefined => (op.body?.anyOf ? op.body.anyOf[0] : op.body);
const isProviderCallback = (op: Operation) =>
  op.path.startsWith('/callbacks/') && !op.path.startsWith('/callbacks/test/');
/** Adyen signs each item inside the body: a changed body no longer verifies, and 401 is its right refusal. */
const isSignedInside = (op: Operation) => op.path === '/callbacks/adyen/{connectionId}';

interface ParamViolation {
  parameter: Parameter;
  violation: Violation;
}

/** Violations a parameter can carry over HTTP (all text): a number where text is expected is still text. */
function parameterViolations(op: Operation): ParamViolation[] {
  return op.parameters.flatMap((parameter) =>
    violationsOf(parameter.schema)
      .filter((v) => !v.constraint.includes('type string'))
      .map((violation) => ({
        parameter,
        violation: {
          ...violation,
          constraint: `${parameter.in} ${parameter.name}: ${violation.constraint.replace('(body): ', '')}`,
        },
      })),
  );
}

interface HostileBody {
  name: string;
  contentType: string;
  body: string | Uint8Array;
  /** Refused whatever the operation (a 4xx); the others need only be answered without a 5xx. */
  refused?: boolean;
}

/** Bodies no client should send: never a 5xx; those that no operation can accept, a documented 4xx. */
function hostileBodies(seed: number): HostileBody[] {
  const deep = 10_000;
  const json = 'application/json';
  return [
    { name: 'random bytes', contentType: json, body: sample(fc.uint8Array({ minLength: 1, maxLength: 2048 }), seed) },
    { name: 'random text', contentType: json, body: sample(fc.string({ unit: 'binary', maxLength: 512 }), seed) },
    { name: 'text/plain', contentType: 'text/plain', body: JSON.stringify({ amount: 1 }) },
    { name: 'application/xml', contentType: 'application/xml', body: '<a>1</a>', refused: true },
    {
      name: 'multipart',
      contentType: 'multipart/form-data; boundary=x',
      body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
      refused: true,
    },
    { name: 'form', contentType: 'application/x-www-form-urlencoded', body: 'amount=1&currency=EUR' },
    {
      name: 'huge (70 KiB)',
      contentType: json,
      body: JSON.stringify({ reference: 'r'.repeat(70 * 1024) }),
      refused: true,
    },
    {
      name: 'huge (2 MiB)',
      contentType: json,
      body: JSON.stringify({ reference: 'r'.repeat(2 * 1024 * 1024) }),
      refused: true,
    },
    { name: `array nested ${deep} deep`, contentType: json, body: '['.repeat(deep) + ']'.repeat(deep), refused: true },
    {
      name: `object nested ${deep} deep`,
      contentType: json,
      body: '{"a":'.repeat(deep) + '1' + '}'.repeat(deep),
      refused: true,
    },
    {
      // A well-formed callback but for its depth: it passes the signature and reaches the receiver's storage.
      name: `callback with providerData nested ${deep} deep`,
      contentType: json,
      body: `{"eventId":"evt-deep-${seed}","transactionId":"t-${seed}","status":"success","amount":1,"currency":"EUR","timestamp":"2026-03-01T12:00:00.000Z","providerData":${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}}`,
      refused: true,
    },
    {
      name: 'broken UTF-8',
      contentType: json,
      body: Buffer.concat([Buffer.from('{"reference":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')]),
    },
    { name: 'lone surrogate', contentType: json, body: '{"reference":"\\ud800","name":"\\udfff"}' },
    { name: 'json null', contentType: json, body: 'null' },
    { name: 'json array', contentType: json, body: '[]' },
    { name: 'json string', contentType: json, body: '"x"' },
    { name: 'number overflow', contentType: json, body: '{"amount":1e400}' },
    { name: 'empty body', contentType: json, body: '' },
    {
      name: 'prototype keys',
      contentType: json,
      body: '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}',
    },
    { name: 'duplicate keys', contentType: json, body: '{"amount":1,"amount":"x"}' },
  ];
}

/** decisions: a load balancer's probe must not fail on a header, so these accept any X-API-Version. */
const PROBES = ['/healthz', '/readyz'];

/**
 * Sends `count` probes round-robin over every operation of the gateway's /openapi.json:
 * valid requests (must answer 2xx or a documented 402 decline), single-constraint violations
 * (must answer a documented 4xx), and hostile bodies (never a 5xx). Every answer must be documented
 * for its operation with a body matching the documented schema.
 */
export async function runFuzz(
  target: FuzzTarget,
  options: { seed: number; count: number; sweep?: boolean; concurrency?: number; onProgress?: (done: number) => void },
): Promise<FuzzSummary> {
  const started = Date.now();
  const doc = (await send(target.url, { method: 'GET', path: '/openapi.json' })).body as any;
  const operations = operationsOf(doc);
  const check = responseChecker(doc);
  const world = new World(target);
  await world.init();

  const summary: FuzzSummary = {
    seed: options.seed,
    operations: operations.length,
    sent: 0,
    setupRequests: 0,
    byKind: { valid: 0, violation: 0, hostile: 0 },
    byStatus: {},
    failures: new Map(),
    failureCount: 0,
    elapsedMs: 0,
  };
  const fail = (failure: Failure) => {
    summary.failureCount++;
    // Grouped by what went wrong, not by the answer's varying text (ids, times) after the colon.
    const key = `${failure.operation} | ${failure.kind} | ${failure.problem.split(': {')[0].replace(/\d{4,}/g, 'N')}`;
    const entry = summary.failures.get(key);
    if (entry) entry.count++;
    else summary.failures.set(key, { count: 1, example: failure });
  };

  /** One probe; `sweep` forces hostile body number `sweep.body` onto operation `sweep.op`. */
  const probe = async (index: number, sweep?: { op: Operation; body: number }) => {
    const seed = options.seed * 1_000_003 + index;
    const random = prng(seed);
    const op = sweep?.op ?? operations[index % operations.length];
    const hostileAllowed = op.method !== 'GET';
    const roll = random();
    const kind: ProbeKind = sweep
      ? 'hostile'
      : roll < 0.4
        ? 'valid'
        : roll < 0.75 || !hostileAllowed
          ? 'violation'
          : 'hostile';
    let fixture;
    try {
      fixture = await world.fixture(op, seed);
    } catch (error) {
      // The world could not be built: the gateway refused a plain valid request of the fixtures.
      return fail({
        operation: op.id,
        kind,
        probe: 'fixture',
        status: 0,
        problem: `preparing the probe failed: ${(error as Error).message.slice(0, 200)}`,
      });
    }

    const values: Record<string, unknown> = {};
    for (const p of op.parameters) {
      if (p.in === 'path') values[p.name] = fixture.path[p.name] ?? sample(arbitraryOf(p.schema), seed);
      else if (p.in === 'query' && (p.required || random() < 0.5))
        values[p.name] = sample(arbitraryOf(p.schema), seed + 1);
    }
    for (const [name, value] of Object.entries(fixture.query ?? {})) values[name] = value;
    const headers: Record<string, string> = { ...fixture.credentials };
    if (random() < 0.3) headers['x-api-version'] = random() < 0.5 ? '2.1' : '2.0';
    if (op.method === 'POST' && random() < 0.5) headers['x-idempotency-key'] = `fuzz-${seed}`;
    const bodySchema = bodySchemaOf(op);
    let body: unknown = bodySchema ? sample(arbitraryOf(bodySchema), seed + 2) : undefined;
    if (fixture.body) body = fixture.body(body ?? {});

    let description = 'schema-valid request';
    let raw: string | Uint8Array | undefined;
    let contentType = 'application/json';
    let mustRefuse = kind === 'violation';
    if (kind === 'violation') {
      const choices: Array<ParamViolation | Violation> = [
        ...(bodySchema ? violationsOf(bodySchema) : []),
        ...parameterViolations(op),
      ];
      if (choices.length === 0) return; // nothing to break (an operation without constraints)
      const chosen = choices[Math.floor(random() * choices.length)];
      if ('parameter' in chosen) {
        const { parameter, violation } = chosen;
        description = violation.constraint;
        const value = violation.remove ? undefined : violation.value;
        if (PROBES.includes(op.path) && parameter.name === 'X-API-Version') mustRefuse = false;
        if (parameter.in === 'header') {
          if (value === undefined) delete headers[parameter.name.toLowerCase()];
          else headers[parameter.name.toLowerCase()] = asText(value);
        } else values[parameter.name] = typeof value === 'object' && value !== null ? JSON.stringify(value) : value;
      } else {
        description = chosen.constraint;
        body = applyViolation(body, chosen);
      }
    } else if (kind === 'hostile') {
      const bodies = hostileBodies(seed);
      const chosen = bodies[sweep?.body ?? Math.floor(random() * bodies.length)];
      description = chosen.name;
      raw = chosen.body;
      contentType = chosen.contentType;
      mustRefuse = chosen.refused === true && op.bodyTypes.length > 0;
    }
    if (raw === undefined && body !== undefined) raw = JSON.stringify(body);
    if (raw !== undefined) headers['content-type'] = contentType;
    if (raw !== undefined && isProviderCallback(op)) Object.assign(headers, world.signatureHeaders(op, raw));

    let path = op.path;
    const query = new URLSearchParams();
    for (const p of op.parameters) {
      const value = values[p.name];
      if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(asText(value)));
      else if (p.in === 'query' && value !== undefined && value !== null) query.set(p.name, asText(value));
    }
    const request: RawRequest = { method: op.method, path: query.size ? `${path}?${query}` : path, headers, body: raw };

    summary.sent++;
    summary.byKind[kind]++;
    let res;
    try {
      res = await send(target.url, request);
    } catch (error) {
      fail({
        operation: op.id,
        kind,
        probe: description,
        status: 0,
        problem: `no answer: ${(error as Error).message}`,
      });
      return;
    }
    summary.byStatus[res.status] = (summary.byStatus[res.status] ?? 0) + 1;
    const record = (problem: string) =>
      fail({ operation: op.id, kind, probe: description, status: res.status, problem });
    if (res.status >= 500) record(`${res.status} for ${description}: ${res.text.slice(0, 200)}`);
    else if (kind === 'valid' || (kind === 'violation' && !mustRefuse)) {
      if (res.status >= 300 && res.status !== 402)
        record(`${description} refused with ${res.status}: ${res.text.slice(0, 200)}`);
    } else if (
      mustRefuse &&
      (res.status < 400 || [403, 429].includes(res.status) || (res.status === 401 && !isSignedInside(op)))
    ) {
      record(`${description} answered ${res.status} instead of a 4xx refusal`);
    }
    // The signature covers the raw bytes: a body signed exactly as sent is never a signature failure.
    if (isProviderCallback(op) && !isSignedInside(op) && res.status === 401)
      record(`${description}, signed over its exact bytes, answered 401: ${res.text.slice(0, 120)}`);
    const broken = check(op, res.status, res.contentType, res.body);
    if (broken) record(broken);
  };

  let next = 0;
  const worker = async () => {
    while (next < options.count) {
      const index = next++;
      await probe(index);
      options.onProgress?.(index + 1);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 1 }, worker));
  // Every hostile body once on every operation that accepts a body, then the gateway must still be ready.
  if (options.sweep) {
    const bodies = hostileBodies(options.seed).length;
    let index = options.count;
    for (const op of operations.filter((o) => o.method !== 'GET')) {
      for (let body = 0; body < bodies; body++) await probe(index++, { op, body });
    }
  }
  const ready = await send(target.url, { method: 'GET', path: '/readyz' });
  if (ready.status !== 200)
    fail({
      operation: 'GET /readyz',
      kind: 'hostile',
      probe: 'after the run',
      status: ready.status,
      problem: `not ready after the run: ${ready.text.slice(0, 200)}`,
    });
  summary.setupRequests = world.setupRequests;
  summary.elapsedMs = Date.now() - started;
  return summary;
}

export function formatSummary(summary: FuzzSummary): string {
  const lines = [
    `fuzz: seed ${summary.seed}, ${summary.operations} operations, ${summary.sent} probes (+${summary.setupRequests} setup requests) in ${(summary.elapsedMs / 1000).toFixed(1)} s`,
    `  probes: ${summary.byKind.valid} valid, ${summary.byKind.violation} single-constraint violations, ${summary.byKind.hostile} hostile bodies`,
    `  statuses: ${Object.entries(summary.byStatus)
      .map(([status, n]) => `${status}×${n}`)
      .join(' ')}`,
    `  violations of the contract: ${summary.failureCount}`,
  ];
  for (const [key, { count, example }] of summary.failures)
    lines.push(
      `    ${count}× ${key}\n       e.g. ${example.probe} → ${example.status}: ${example.problem.slice(0, 300)}`,
    );
  return lines.join('\n');
}

/** A generated value as it goes into a header, path or query: objects as JSON, the rest as written. */
function asText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
