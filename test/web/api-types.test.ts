import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { declaredShapes, type Shape } from './declared-shapes.js';
import { dereference } from '../../proof/fuzz/contract.js';

/**
 * web/shared/api-types.ts declares by hand the API objects the front ends read. Each declaration is
 * compared here with the schema the gateway documents for it in /openapi.json: every declared field
 * exists there, a field declared always present is required there, and null, enums, arrays and
 * primitive types agree. A front end may declare fewer fields than the API answers, never other ones.
 */

interface Schema {
  type?: string;
  nullable?: boolean;
  enum?: unknown[];
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
}

/** Where a declaration is answered: "METHOD /path" (its 2xx answer, or its body), then a path inside it. */
type Place = { operation: string; part: 'answer' | 'body'; steps: string[] };
const answer = (operation: string, ...steps: string[]): Place => ({ operation, part: 'answer', steps });
const body = (operation: string, ...steps: string[]): Place => ({ operation, part: 'body', steps });

const DESCRIBED: Record<string, Place[]> = {
  Page: [answer('GET /events'), answer('GET /payments'), answer('GET /customers')],
  Session: [answer('GET /auth/session'), answer('POST /auth/session'), answer('POST /team/invitations/accept')],
  Role: [answer('GET /auth/session', 'user', 'role')],
  Payer: [body('POST /payments/h2h/{id}')],
  PaymentRequestStatus: [answer('GET /payment-requests/{id}', 'status')],
  PaymentRequest: [answer('GET /payment-requests/{id}'), answer('POST /payment-requests')],
  ListedPaymentRequest: [answer('GET /payment-requests', 'data', '[]')],
  Payment: [
    answer('GET /payments/{paymentId}'),
    answer('GET /payments', 'data', '[]'),
    answer('POST /payments/h2h/{id}'),
  ],
  LastPayment: [answer('GET /payment-requests', 'data', '[]', 'lastPayment')],
  Timeline: [answer('GET /payment-requests/{id}/timeline')],
  TimelineEntry: [answer('GET /payment-requests/{id}/timeline', 'entries', '[]')],
  CheckoutSessionGrant: [answer('POST /payment-requests/{paymentRequestId}/checkout-session')],
  Customer: [answer('GET /customers/{id}'), answer('GET /customers', 'data', '[]'), answer('POST /customers')],
  CustomerSummary: [answer('GET /customers/{id}/summary')],
  CustomerTotals: [answer('GET /customers/{id}/summary', 'totals', '[]')],
  Settings: [answer('GET /settings'), answer('PATCH /settings')],
  NewWebhookSecret: [answer('POST /settings/webhook-secret')],
  EventSummary: [answer('GET /events', 'data', '[]')],
  EventDetail: [answer('GET /events/{eventId}')],
  DeliveryAttempt: [answer('GET /events/{eventId}', 'attempts', '[]')],
  TestEventDelivery: [answer('POST /events/test')],
  ReceivedCallback: [answer('GET /callback-events', 'data', '[]')],
  Notice: [answer('GET /notices', 'data', '[]')],
  FailedJob: [answer('GET /jobs/failed', 'data', '[]')],
  Dashboard: [answer('GET /reports/dashboard')],
  DashboardDay: [answer('GET /reports/dashboard', 'days', '[]')],
  AuditEntry: [answer('GET /audit-log', 'data', '[]')],
  Team: [answer('GET /team')],
  TeamMember: [answer('GET /team', 'members', '[]')],
  Invitation: [answer('GET /team', 'invitations', '[]')],
  TeamMemberChange: [answer('PATCH /team/members/{userId}'), answer('DELETE /team/members/{userId}')],
  KeySummary: [answer('GET /users/{userId}/apikeys', '[]')],
  ProcessorConnection: [
    answer('GET /processor-connections', 'data', '[]'),
    answer('GET /processor-connections/{connectionId}'),
    answer('POST /processor-connections'),
    answer('PATCH /processor-connections/{connectionId}'),
  ],
};

const gw = useGateway();
let doc: any;
const declared = declaredShapes(fileURLToPath(new URL('../../web/shared/api-types.ts', import.meta.url)));
beforeAll(async () => {
  doc = (await gw.call('GET', '/openapi.json')).body;
});

/** A schema's alternatives (anyOf flattened) without the null one, and whether null is one of them. */
function alternatives(schema: Schema): { nullable: boolean; branches: Schema[] } {
  const flat = (s: Schema): Schema[] => (s.anyOf ? s.anyOf.flatMap(flat) : [s]);
  const all = flat(schema);
  const isNull = (s: Schema) => s.type === 'null' || (s.enum !== undefined && s.enum.every((v) => v === null));
  return {
    nullable: Boolean(schema.nullable) || all.some((s) => s.nullable || isNull(s)),
    branches: all.filter((s) => !isNull(s)),
  };
}

function locate(place: Place): Schema {
  const [method, path] = place.operation.split(' ');
  const operation = doc.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`/openapi.json has no ${place.operation}`);
  const content =
    place.part === 'body'
      ? operation.requestBody?.content
      : Object.entries<any>(operation.responses).find(([status]) => status.startsWith('2'))?.[1].content;
  let schema: Schema | undefined = dereference(doc, content?.['application/json']?.schema);
  for (const step of place.steps) {
    const inner: Schema[] = schema ? alternatives(schema).branches : [];
    schema =
      step === '[]' ? inner.find((s) => s.items)?.items : inner.find((s) => s.properties?.[step])?.properties?.[step];
    if (!schema) throw new Error(`${place.operation}: no ${place.steps.join('.')} in its ${place.part}`);
  }
  return schema!;
}

const PRIMITIVES = { string: ['string'], number: ['number', 'integer'], boolean: ['boolean'] };

/** What in a declared shape disagrees with the schema, one line each (empty: they agree). */
function disagreements(shape: Shape, schema: Schema, at: string): string[] {
  const { nullable, branches } = alternatives(schema);
  const found: string[] = [];
  if (nullable !== shape.nullable)
    found.push(nullable ? `${at}: the API may answer null` : `${at}: declared nullable, the API never answers null`);
  // A schema without a type (e.g. a callback's raw payload) admits anything.
  if (shape.kind === 'any' || branches.some((s) => Object.keys(s).length === 0)) return found;
  const types = branches.map((s) => s.type ?? (s.properties ? 'object' : 'untyped')).join(' | ');
  switch (shape.kind) {
    case 'string':
    case 'number':
    case 'boolean':
      if (!branches.every((s) => PRIMITIVES[shape.kind].includes(s.type ?? '')))
        found.push(`${at}: declared ${shape.kind}, the API answers ${types}`);
      return found;
    case 'enum': {
      const values = branches.flatMap((s) => s.enum ?? ['(any string)']).map(String);
      if ([...shape.values].sort().join() !== [...values].sort().join())
        found.push(`${at}: declared ${shape.values.join(' | ')}, the API answers ${values.join(' | ')}`);
      return found;
    }
    case 'array': {
      const array = branches.find((s) => s.type === 'array' && s.items);
      return array
        ? [...found, ...disagreements(shape.items, array.items!, `${at}[]`)]
        : [...found, `${at}: declared an array, the API answers ${types}`];
    }
    case 'record':
      if (!branches.every((s) => s.type === 'object'))
        found.push(`${at}: declared an object, the API answers ${types}`);
      return found;
    case 'object': {
      const objects = branches.filter((s) => s.type === 'object' || s.properties);
      if (objects.length === 0) return [...found, `${at}: declared an object, the API answers ${types}`];
      // Of several alternatives (a request body's variants), the declaration matches the closest one.
      const [closest] = objects.map((s) => fieldDisagreements(shape, s, at)).sort((a, b) => a.length - b.length);
      return [...found, ...closest];
    }
    case 'union':
      return [
        ...found,
        ...shape.members.flatMap((member, i) => disagreements(member, { anyOf: branches }, `${at}<${i}>`)),
      ];
  }
}

function fieldDisagreements(shape: Extract<Shape, { kind: 'object' }>, schema: Schema, at: string): string[] {
  return Object.entries(shape.fields).flatMap(([name, field]) => {
    const property = schema.properties?.[name];
    if (!property) return [`${at}.${name}: not in the API's answer`];
    const absent = field.optional || schema.required?.includes(name) ? [] : [`${at}.${name}: the API may leave it out`];
    return [...absent, ...disagreements(field.shape, property, `${at}.${name}`)];
  });
}

describe('web/shared/api-types.ts', () => {
  it('names, for every declaration, the answers it describes', () => {
    expect([...declared.keys()].sort()).toEqual(Object.keys(DESCRIBED).sort());
  });

  it.each(Object.entries(DESCRIBED))('declares %s as /openapi.json documents it', (name, places) => {
    const shape = declared.get(name)!;
    for (const place of places) {
      const schema = locate(place);
      // The declaration itself is not nullable: its users say where null may come instead.
      const top = { ...shape, nullable: alternatives(schema).nullable };
      expect(disagreements(top, schema, name), `${name} against ${place.operation}`).toEqual([]);
    }
  });

  it('notices a drift: a field renamed, made nullable, made optional or retyped', () => {
    const schema: Schema = {
      type: 'object',
      required: ['id', 'note'],
      properties: { id: { type: 'integer' }, note: { type: 'string', nullable: true } },
    };
    const drifted: Shape = {
      kind: 'object',
      nullable: false,
      fields: {
        ident: { optional: false, shape: { kind: 'number', nullable: false } },
        note: { optional: false, shape: { kind: 'string', nullable: false } },
      },
    };
    expect(disagreements(drifted, schema, 'X')).toEqual([
      `X.ident: not in the API's answer`,
      'X.note: the API may answer null',
    ]);
    const optional: Shape = {
      ...drifted,
      fields: { id: { optional: false, shape: { kind: 'string', nullable: false } } },
    };
    expect(disagreements(optional, { ...schema, required: [] }, 'X')).toEqual([
      'X.id: the API may leave it out',
      'X.id: declared string, the API answers integer',
    ]);
  });
});
