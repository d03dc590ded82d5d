import Fastify from 'fastify';
import fastifySwagger from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import { beforeAll, describe, expect, it } from 'vitest';
import { isInline, withNamedBodies, type OpenApiDocument } from '../../src/http/openapi-components.js';
import { openApiDocument } from '../../src/openapi-document.js';

/**
 * /openapi.json is what client generators read (the SDK's types are generated from it, docs/sdk.md):
 * every operation is named by a unique operationId declared with its route, and every JSON body it
 * takes or answers is a named component, so that each gets a type name of its own.
 */

type Operation = {
  operationId?: string;
  parameters?: Array<{ $ref?: string }>;
  security?: Array<Record<string, unknown>>;
  requestBody?: { content: Record<string, { schema?: Record<string, unknown>; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown>; example?: unknown }> }>;
};
let doc: { paths: Record<string, Record<string, Operation>>; components: Record<string, Record<string, any>> };
const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
  );
const byId = (id: string) => operations().find(({ op }) => op.operationId === id)!.op;

beforeAll(async () => {
  doc = (await openApiDocument()) as typeof doc;
});

/** What is wrong with a document for a generator: one line per problem. */
function problemsOf(document: typeof doc): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [path, ops] of Object.entries(document.paths))
    for (const [method, op] of Object.entries(ops)) {
      const name = `${method.toUpperCase()} ${path}`;
      const id = op.operationId;
      if (!id) problems.push(`${name}: no operationId`);
      else if (!/^[a-z][a-zA-Z0-9]*$/.test(id)) problems.push(`${name}: operationId ${id} is not camelCase`);
      else if (seen.has(id)) problems.push(`${name}: operationId ${id} is also ${seen.get(id)}'s`);
      if (id) seen.set(id, name);
      const bodies = [
        ...Object.entries(op.requestBody?.content ?? {}).map(([type, media]) => [`body ${type}`, media] as const),
        ...Object.entries(op.responses).flatMap(([status, response]) =>
          Object.entries(response.content ?? {}).map(([type, media]) => [`${status} ${type}`, media] as const),
        ),
      ];
      for (const [where, media] of bodies)
        if (media.schema && isInline(media.schema)) problems.push(`${name}: ${where} is an unnamed inline schema`);
    }
  return problems;
}

describe('the OpenAPI document for client generators', () => {
  it('names every operation once, verb first, and every JSON body as a component', () => {
    expect(operations().length).toBeGreaterThan(50);
    expect(problemsOf(doc)).toEqual([]);
    for (const [id, path] of [
      ['createPaymentRequest', 'post /payment-requests'],
      ['getPayment', 'get /payments/{paymentId}'],
      ['listPayments', 'get /payments'],
      ['refundPayment', 'post /payments/{paymentId}/refunds'],
      ['submitH2hPayment', 'post /payments/h2h/{id}'],
      ['createCheckoutSession', 'post /payment-requests/{paymentRequestId}/checkout-session'],
    ]) {
      const [method, route] = path.split(' ');
      expect(doc.paths[route][method].operationId, path).toBe(id);
    }
  });

  it('notices an operation without an operationId, a duplicate one and an inline body', () => {
    const broken = structuredClone(doc);
    delete broken.paths['/payments'].get.operationId;
    broken.paths['/customers'].get.operationId = 'getPayment';
    broken.paths['/customers'].post.requestBody!.content['application/json'].schema = {
      type: 'object',
      properties: { name: { type: 'string' } },
    };
    expect(problemsOf(broken).sort()).toEqual([
      "GET /payments/{paymentId}: operationId getPayment is also GET /customers's",
      'GET /payments: no operationId',
      'POST /customers: body application/json is an unnamed inline schema',
    ]);
  });

  it('shares one component for one resource: the payment of every answer is Payment', () => {
    const ref = { $ref: '#/components/schemas/Payment' };
    for (const id of ['getPayment', 'submitH2hPayment', 'capturePayment', 'cancelPayment'])
      expect(byId(id).responses['200'].content!['application/json'].schema, id).toEqual(ref);
    expect(doc.components.schemas.ListPaymentsResponse.properties.data.items).toEqual(ref);
    expect(doc.components.schemas.SubmitH2hPaymentBody.anyOf).toContainEqual({
      $ref: '#/components/schemas/H2hCardPayment',
    });
  });

  it('shows an example on the main operations', () => {
    for (const id of [
      'createPaymentRequest',
      'submitH2hPayment',
      'createCheckoutSession',
      'createCustomer',
      'refundPayment',
    ]) {
      const op = byId(id);
      expect(op.requestBody!.content['application/json'].example, `${id} body`).toBeDefined();
      expect(
        op.responses[Object.keys(op.responses).find((s) => s.startsWith('2'))!].content!['application/json'].example,
        `${id} answer`,
      ).toBeDefined();
    }
  });

  it('documents both idempotency key headers and the API key header', () => {
    const parameters = doc.components.parameters;
    expect(parameters.IdempotencyKey).toMatchObject({ name: 'X-Idempotency-Key', in: 'header' });
    expect(parameters.IdempotencyKeyDraft).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
    expect(byId('createPaymentRequest').parameters).toEqual(
      expect.arrayContaining([
        { $ref: '#/components/parameters/IdempotencyKey' },
        { $ref: '#/components/parameters/IdempotencyKeyDraft' },
      ]),
    );
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(byId('createPaymentRequest').security).toEqual([{ ApiKey: [] }]);
  });
});

describe('naming the bodies (openapi-components.ts)', () => {
  it('names a titled schema by its title wherever it is, the rest after the operation', async () => {
    const Item = Type.Object({ id: Type.Integer() }, { title: 'Item' });
    const app = Fastify();
    await app.register(fastifySwagger, {
      openapi: { info: { title: 't', version: '1' } },
      transformObject: (d) =>
        withNamedBodies(('openapiObject' in d ? d.openapiObject : {}) as OpenApiDocument) as never,
    });
    app.post(
      '/items',
      {
        schema: {
          operationId: 'createItem',
          body: Type.Object({ name: Type.String() }),
          response: { 200: Type.Object({ items: Type.Array(Item) }) },
        },
      },
      async () => ({ items: [] }),
    );
    await app.ready();
    const document = app.swagger() as any;
    expect(document.paths['/items'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateItemBody',
    });
    expect(document.components.schemas.CreateItemResponse.properties.items.items).toEqual({
      $ref: '#/components/schemas/Item',
    });
    expect(document.components.schemas.Item.properties.id).toEqual({ type: 'integer' });
    await app.close();
  });

  it('refuses two different schemas under one name', () => {
    const document: OpenApiDocument = {
      paths: {
        '/a': {
          get: {
            operationId: 'a',
            responses: { 200: { content: { 'application/json': { schema: { title: 'X', type: 'object' } } } } },
          },
        },
        '/b': {
          get: {
            operationId: 'b',
            responses: { 200: { content: { 'application/json': { schema: { title: 'X', type: 'array' } } } } },
          },
        },
      },
    };
    expect(() => withNamedBodies(document)).toThrow('two different schemas are named X');
  });
});
