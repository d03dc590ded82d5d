import { Type, type Static } from '@sinclair/typebox';
import { nullable } from '../../lib/schema.js';

/** The merchant dashboard's figures (docs/reporting.md). */

export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 30;

const Day = Type.String({ format: 'date', description: 'A UTC calendar day, YYYY-MM-DD' });

export const DashboardQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      format: 'date',
      description: `First UTC day (inclusive); default ${DEFAULT_RANGE_DAYS - 1} days before to`,
    }),
  ),
  to: Type.Optional(Type.String({ format: 'date', description: 'Last UTC day (inclusive); default today' })),
});
export type DashboardQuery = Static<typeof DashboardQuery>;

const Rate = nullable(Type.Number({ description: 'approved ÷ (approved + declined), 0 to 1; null without either' }));

export const Dashboard = Type.Object({
  from: Day,
  to: Day,
  livemode: Type.Boolean(),
  days: Type.Array(
    Type.Object({
      day: Day,
      currency: Type.String(),
      count: Type.Integer({ description: 'Payment attempts created that day, in any status' }),
      approved: Type.Integer({ description: 'Of them authorized or succeeded' }),
      declined: Type.Integer({ description: 'Of them failed' }),
      volume: Type.Number({ description: 'Approved amounts, major units' }),
      volumeMinor: Type.Integer({ description: 'Approved amounts, minor units' }),
    }),
    { description: 'One entry per day and currency with at least one payment, by day then currency' },
  ),
  approval: Type.Object({
    approved: Type.Integer(),
    declined: Type.Integer(),
    rate: Rate,
  }),
  topDeclineReasons: Type.Array(
    Type.Object({ declineCode: Type.String(), declineReason: nullable(Type.String()), count: Type.Integer() }),
    {
      description:
        'The most frequent reasons of the failed payments, most frequent first (at most 5). declineCode is the ' +
        "issuer's decline code, or for a failure without one its failure code (threeds_failed, upi_failed, " +
        'processor_failed, processor_error, processor_unreachable) with the reason in words ("3-D Secure failed")',
    },
  ),
});
export type Dashboard = Static<typeof Dashboard>;
