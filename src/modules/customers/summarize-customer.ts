import type { DbContext } from '../../storage/db-context.js';
import { fromMinor } from '../../lib/money.js';
import { getCustomer } from './list-customers.js';
import { customerRequestTotals, type CustomerScope } from './repository.js';
import type { CustomerSummary } from './schemas.js';

/** The panel's customer detail: the record and its payment requests counted and summed per currency. */
export async function summarizeCustomer(
  ctx: DbContext,
  input: { scope: CustomerScope; id: number },
): Promise<CustomerSummary> {
  const customer = await getCustomer(ctx, input);
  const rows = await customerRequestTotals(ctx.db, input.scope, input.id, ctx.clock.now());
  const byCurrency = new Map<string, { count: number; countByStatus: Record<string, number>; sums: number[] }>();
  for (const row of rows) {
    const entry = byCurrency.get(row.currency) ?? { count: 0, countByStatus: {}, sums: [0, 0, 0] };
    entry.count += Number(row.count);
    entry.countByStatus[row.status] = Number(row.count);
    [row.amount, row.paid, row.refunded].forEach((sum, i) => (entry.sums[i] += Number(sum)));
    byCurrency.set(row.currency, entry);
  }
  return {
    customer,
    totals: [...byCurrency].map(([currency, { count, countByStatus, sums }]) => {
      const [amount, paid, refunded] = sums;
      return {
        currency,
        count,
        countByStatus,
        amount: fromMinor(amount, currency),
        amountPaid: fromMinor(paid, currency),
        amountRefunded: fromMinor(refunded, currency),
        net: fromMinor(paid - refunded, currency),
      };
    }),
    paymentRequests: `/payment-requests?customerId=${customer.id}`,
  };
}
