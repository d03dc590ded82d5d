import { invalidFormat, notFound } from '../../errors.js';
import type { Config } from '../../config.js';
import type { DbContext } from '../../storage/db-context.js';
import { checkReturnUrl } from '../../lib/return-url.js';
import { minorUnit, normalizeCurrency, toMinor } from '../../lib/money.js';
import { checkNotifyUrl } from '../notifications/index.js';
import { scheduleExpiry } from './expire-payment-request.js';
import { payerDefaults } from './payer-defaults.js';
import { findCustomerContact, insertPaymentRequest, type MerchantScope } from './repository.js';
import type { CreatePaymentRequestInput } from './schemas.js';

/**
 * Creates an open payment request. The body's shape and bounds are already checked by its
 * schema; this checks what needs the currency, the clock, the mode, name resolution (notifyUrl) or the
 * database, and completes the payer defaults from the customer. Caller owns the transaction.
 */
export async function createPaymentRequest(
  ctx: DbContext & { config: Pick<Config, 'webhookAllowPrivateTargets'> },
  input: CreatePaymentRequestInput & { scope: MerchantScope },
) {
  const { scope } = input;
  const currency = normalizeCurrency(input.currency);
  if (!currency) {
    throw invalidFormat(
      'currency',
      input.currency,
      `currency '${input.currency}' is not an active ISO 4217 currency code (e.g. EUR, USD, JPY)`,
    );
  }
  const amount = toMinor(input.amount, currency);
  if (amount === undefined) {
    const digits = minorUnit(currency);
    throw invalidFormat(
      'amount',
      input.amount,
      `amount must have at most ${digits} decimal${digits === 1 ? '' : 's'} for ${currency}`,
    );
  }
  const now = ctx.clock.now();
  const expiresAt = input.expiresAt ? new Date(input.expiresAt) : null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) {
    throw invalidFormat('expiresAt', input.expiresAt, 'expiresAt must be in the future');
  }
  await checkNotifyUrl(ctx, { field: 'notifyUrl', url: input.notifyUrl });
  checkReturnUrl('successUrl', input.successUrl, scope.livemode);
  checkReturnUrl('failureUrl', input.failureUrl, scope.livemode);
  const customerId = input.customerId ?? null;
  const customer = customerId === null ? undefined : await findCustomerContact(ctx.db, scope, customerId);
  if (customerId !== null && !customer) throw notFound(`customer ${customerId}`);

  const row = await insertPaymentRequest(ctx.db, {
    merchant_id: scope.merchantId,
    livemode: scope.livemode,
    amount,
    currency,
    reference: input.reference,
    description: input.description ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    customer_id: customerId,
    status: 'open',
    expires_at: expiresAt,
    notify_url: input.notifyUrl ?? null,
    success_url: input.successUrl ?? null,
    failure_url: input.failureUrl ?? null,
    capture_delay_hours: input.captureDelayHours ?? 0,
    payer: JSON.stringify(payerDefaults(input.payer, customer)),
    created_at: now,
    updated_at: now,
  });
  if (row.expires_at) await scheduleExpiry(ctx.db, { ...row, expires_at: row.expires_at });
  return row;
}
