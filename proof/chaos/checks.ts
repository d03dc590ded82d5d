import { sql } from 'kysely';
import type { Db } from '../../src/storage/db.js';
import { CVV, DECLINED_CARD, isDefinite, PAYING_CARD, type Answer, type Exchange, type Order } from './clients.js';

export interface Verdict {
  /** Individual checks made (one per object and invariant). */
  checked: number;
  violations: string[];
  /** Time from the gateway being ready again to each interrupted call's definite answer, ms. */
  answerAfterRestartMs: number[];
}

/** What must agree between a decision and every later answer with the same key. */
const essence = (answer: Answer) =>
  JSON.stringify([
    answer.status,
    answer.body?.paymentId,
    answer.body?.paymentRequestId,
    answer.body?.id,
    answer.body?.status,
    answer.body?.code,
  ]);

const exchangesOf = (order: Order) =>
  [order.request, order.pay, order.refundCall, order.overRefund].filter((e): e is Exchange => !!e);

/** Per call: decided within the deadline, and every decided answer (and the replay) equal to the first. */
export function checkAnswers(orders: Order[], readyAt: number[], verdict: Verdict): void {
  for (const order of orders) {
    for (const exchange of exchangesOf(order)) {
      verdict.checked += 2;
      if (!exchange.decided) {
        const last = exchange.answers[exchange.answers.length - 1];
        verdict.violations.push(
          `${exchange.key}: no definite answer (${exchange.errors} errors${exchange.lastError ? `, last: ${exchange.lastError}` : ''}; last answer ${last ? `${last.status} ${JSON.stringify(last.body).slice(0, 160)}` : 'none'})`,
        );
        continue;
      }
      const first = essence(exchange.decided);
      for (const answer of [...exchange.answers, ...(exchange.replay ? [exchange.replay] : [])]) {
        if (isDefinite(answer.status) && essence(answer) !== first) {
          verdict.violations.push(`${exchange.key}: answered ${essence(answer)} after first deciding ${first}`);
          break;
        }
      }
      const interrupted = exchange.errors > 0 || exchange.answers.some((a) => !isDefinite(a.status));
      const back = readyAt.filter((t) => t > exchange.startedAt && t <= exchange.decided!.at).pop();
      if (interrupted && back !== undefined) verdict.answerAfterRestartMs.push(exchange.decided.at - back);
    }
  }
}

interface GatewayView {
  get(path: string): Promise<{ status: number; body: any }>;
}
/** What one processor holds of a payment reference (amounts in that processor's own unit). */
export interface Charge {
  processor: string;
  amountCaptured: number;
  amountRefunded: number;
}

/** Every processor the payments may have gone to, asked by our reference `pay_<id>`. */
export interface ProcessorsView {
  chargesOf(reference: string): Promise<Charge[]>;
}

/**
 * Acknowledged outcomes persisted, one payment per request, one charge per request across every
 * processor, refunds within captures.
 */
export async function checkOutcomes(
  orders: Order[],
  gateway: GatewayView,
  processors: ProcessorsView,
  verdict: Verdict,
  opts: { settled: boolean },
): Promise<void> {
  for (const order of orders) {
    const requestId = order.request?.decided?.body?.paymentRequestId;
    if (!requestId) continue;
    const acknowledged = order.pay?.decided?.body;
    if (acknowledged?.paymentId) {
      verdict.checked++;
      const stored = await gateway.get(`/payments/${acknowledged.paymentId}`);
      const ackStatus = order.pay!.decided!.status === 402 ? 'failed' : acknowledged.status;
      const settledLater = ackStatus === 'pending' && ['succeeded', 'failed'].includes(stored.body?.status);
      if (stored.status !== 200 || (stored.body.status !== ackStatus && !settledLater)) {
        verdict.violations.push(
          `payment ${acknowledged.paymentId}: acknowledged ${ackStatus}, stored ${stored.status} ${stored.body?.status}`,
        );
      }
    }
    const list = await gateway.get(`/payments?paymentRequestId=${requestId}`);
    const payments: any[] = list.body?.data ?? list.body ?? [];
    verdict.checked += 3;
    const succeeded = payments.filter((p) => p.status === 'succeeded');
    if (succeeded.length > 1)
      verdict.violations.push(
        `request ${requestId}: paid ${succeeded.length} times (${succeeded.map((p) => p.paymentId).join(', ')})`,
      );
    let charges = 0;
    for (const p of payments) {
      const found = await processors.chargesOf(`pay_${p.paymentId}`);
      for (const charge of found)
        if (charge.amountRefunded > charge.amountCaptured)
          verdict.violations.push(
            `${charge.processor} pay_${p.paymentId}: refunded ${charge.amountRefunded} of ${charge.amountCaptured}`,
          );
      const charged = found.filter((charge) => charge.amountCaptured > 0);
      charges += charged.length;
      verdict.checked++;
      if (charged.length > 1)
        verdict.violations.push(
          `payment ${p.paymentId}: charged at ${charged.length} places (${charged.map((c) => c.processor).join(', ')})`,
        );
      if (charged.length === 0) continue;
      if (p.status === 'failed')
        verdict.violations.push(`payment ${p.paymentId}: charged at the processor but failed at the gateway`);
      if (opts.settled && p.status !== 'succeeded')
        verdict.violations.push(`payment ${p.paymentId}: charged at the processor but ${p.status} after settling`);
    }
    if (charges > 1) verdict.violations.push(`request ${requestId}: charged ${charges} times at the processor`);
    if (opts.settled && payments.some((p) => p.status === 'pending'))
      verdict.violations.push(`request ${requestId}: a payment still pending after settling`);
  }
}

/** In the database itself: every committed state change has its outbox event; refunds never exceed captures. */
export async function checkStore(db: Db, verdict: Verdict): Promise<void> {
  const missing = await sql<{ kind: string; id: number; status: string }>`
    select 'payment' as kind, p.id, p.status from payments p
     where p.status in ('succeeded', 'failed', 'authorized', 'canceled', 'requires_action')
       and not exists (select 1 from outbox_events o where o.object_id = p.id and o.type = 'payment.' || p.status)
    union all
    select 'refund', r.id, r.status from refunds r
     where r.status in ('succeeded', 'failed')
       and not exists (select 1 from outbox_events o where o.object_id = r.id and o.type = 'refund.' || r.status)`.execute(
    db,
  );
  for (const row of missing.rows)
    verdict.violations.push(`${row.kind} ${row.id} is ${row.status} without its outbox event`);
  const over = await sql<{ id: number; captured: number; refunded: number; sum: number }>`
    select p.id, p.amount_captured as captured, p.amount_refunded as refunded,
           coalesce((select sum(r.amount) from refunds r where r.payment_id = p.id and r.status = 'succeeded'), 0) as sum
      from payments p
     where p.amount_refunded > p.amount_captured
        or coalesce((select sum(r.amount) from refunds r where r.payment_id = p.id and r.status = 'succeeded'), 0) > p.amount_captured`.execute(
    db,
  );
  for (const row of over.rows)
    verdict.violations.push(
      `payment ${row.id}: refunds ${row.refunded} (sum ${row.sum}) exceed captures ${row.captured}`,
    );
  const counts = await sql<{
    n: number;
  }>`select (select count(*) from payments) + (select count(*) from refunds) as n`.execute(db);
  verdict.checked += 2 * Number(counts.rows[0].n);
}

/** No card number or CVV in a dump of every table nor in any log line of any of the gateway's lives. */
export async function checkCardData(db: Db, logs: string, verdict: Verdict): Promise<void> {
  const tables = await sql<{
    table_name: string;
  }>`select table_name from information_schema.tables where table_schema = 'public'`.execute(db);
  let dump = '';
  for (const { table_name } of tables.rows)
    dump += JSON.stringify((await sql`select * from ${sql.table(table_name)}`.execute(db)).rows);
  const cvv = new RegExp(`["']${CVV}["']|=${CVV}\\b`);
  for (const [where, text] of [
    ['database dump', dump],
    ['logs', logs],
  ] as const) {
    verdict.checked += 3;
    for (const pan of [PAYING_CARD, DECLINED_CARD])
      if (text.includes(pan)) verdict.violations.push(`card number ${pan} in the ${where}`);
    if (cvv.test(text)) verdict.violations.push(`CVV in the ${where}`);
  }
}
