import fc from 'fast-check';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { expect, it } from 'vitest';
import type { Database } from '../../src/storage/schema.js';
import { statementTemplate } from '../../src/storage/statement-template.js';

// A template compiled once must send exactly what building the statement afresh with the same values
// sends: the same text and the same parameters, in the same places. The statement below has the
// kinds of value the settle statement has: plain, null, dates, JSON written by the builder, constants.

const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as pg.Pool }) });

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

function build(value: <T>(name: string) => T) {
  const now = value<Date>('now');
  return db
    .with('pay', (qb) =>
      qb
        .updateTable('payments')
        .set({
          status: 'failed',
          updated_at: now,
          decline_reason: value<string | null>('reason'),
          failure_details: json(value('details')),
        })
        .where('id', '=', value<number>('id'))
        .where('merchant_id', 'is not distinct from', value<number | null>('merchantId'))
        .where('status', 'in', ['pending', 'requires_action'])
        .returningAll(),
    )
    .with('event', (qb) =>
      qb
        .insertInto('outbox_events')
        .columns(['merchant_id', 'livemode', 'type', 'object_id', 'payload', 'created_at'])
        .expression(
          sql`select pay.merchant_id, pay.livemode, ${'payment.failed'}::text, pay.id,
            ${JSON.stringify(value('payload'))}::jsonb, ${now}::timestamptz from pay` as never,
        ),
    )
    .selectFrom('pay')
    .selectAll()
    .compile();
}

const template = statementTemplate(build);

it('fills in any values exactly where building the statement afresh puts them', () => {
  const details = fc.option(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean())));
  fc.assert(
    fc.property(
      fc.record({
        now: fc.date({ noInvalidDate: true }),
        reason: fc.option(fc.string()),
        details,
        id: fc.integer({ min: 1 }),
        merchantId: fc.option(fc.integer({ min: 1 })),
        payload: fc.dictionary(fc.string(), fc.jsonValue()),
      }),
      (values) => {
        const fresh = build(<T>(name: string) => values[name as keyof typeof values] as T);
        const filled = template.fill(values);
        expect(filled.sql).toBe(fresh.sql);
        expect(filled.parameters).toEqual(fresh.parameters);
      },
    ),
  );
});

it('refuses a value it was not given, rather than send the statement half filled', () => {
  expect(() => template.fill({ now: new Date(), reason: null, details: null, id: 1, payload: {} })).toThrow(
    /no value for merchantId/,
  );
});

it('refuses a placeholder that is only part of a value or of the text', () => {
  expect(() =>
    statementTemplate((value) =>
      db
        .selectFrom('payments')
        .selectAll()
        .where('decline_reason', '=', `declined: ${value<string>('reason')}`)
        .compile(),
    ),
  ).toThrow(/part of a larger value/);
  expect(() =>
    statementTemplate((value) =>
      db
        .selectFrom('payments')
        .select(sql.ref(value<string>('column')).as('x'))
        .compile(),
    ),
  ).toThrow(/written into the statement text/);
});
