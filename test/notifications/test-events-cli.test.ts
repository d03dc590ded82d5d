import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../helpers/gateway.js';
import { buildOnce, gatewayCli } from '../helpers/processes.js';
import { validateEvent } from './event-schemas.js';
import { merchantWithSecret } from './merchant-side.js';
import { startReceiver, type Receiver } from './receiver.js';

// `npm run gateway -- events trigger TYPE --merchant ID`, run as the operator runs it, on the store of a
// test gateway (its merchants, settings and signing secrets).
const SLOW = { timeout: 180_000 };
const gw = useGateway();
let receiver: Receiver;
let store: Record<string, string>;
beforeAll(async () => {
  buildOnce();
  receiver = await startReceiver();
  store = { DATABASE_URL: gw.config.databaseUrl!, DATA_DIR: 'memory://' };
});
afterAll(async () => receiver.close());

const trigger = (...args: string[]) => gatewayCli(['events', 'trigger', ...args], store);

describe('gateway events trigger', () => {
  it(
    'sends a signed test event of the type to the merchant and prints the outcome as one JSON line',
    SLOW,
    async () => {
      const m = await merchantWithSecret(gw, receiver.url + '/hooks/cli');
      const result = await trigger('payment_request.expired', '--merchant', String(m.merchantId));
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const outcome = JSON.parse(lines[0]);
      expect(outcome).toMatchObject({
        type: 'payment_request.expired',
        url: `${receiver.url}/hooks/cli`,
        delivered: true,
        statusCode: 200,
      });
      const [received, ...more] = receiver.at('/hooks/cli');
      expect(more).toEqual([]);
      // The CLI signs at the real time, which the library's own clock checks.
      const event = new Webhook(m.secret).verify(received.body, received.headers as Record<string, string>);
      expect(event).toMatchObject({ id: outcome.id, type: 'payment_request.expired', livemode: false, test: true });
      expect(validateEvent(event as Record<string, unknown>)).toEqual([]);
    },
  );

  it(
    'refuses an unknown type (exit 2), a merchant without a notifyUrl or unknown (exit 1), and sends nothing',
    SLOW,
    async () => {
      const m = await merchantWithSecret(gw, receiver.url + '/hooks/cli-refused');
      const id = String(m.merchantId);
      const unknownType = await trigger('payment.nothing', '--merchant', id);
      expect([unknownType.code, unknownType.stdout]).toEqual([2, '']);
      expect(unknownType.stderr).toContain('payment.succeeded');
      const noMerchant = await trigger('payment.succeeded');
      expect([noMerchant.code, noMerchant.stdout]).toEqual([2, '']);
      expect(noMerchant.stderr).toContain('--merchant');
      const badMode = await trigger('payment.succeeded', '--merchant', id, '--mode', 'staging');
      expect([badMode.code, badMode.stdout]).toEqual([2, '']);
      expect(receiver.at('/hooks/cli-refused')).toEqual([]);

      // The live settings have no notifyUrl.
      const live = await trigger('payment.succeeded', '--merchant', id, '--mode', 'live');
      expect([live.code, live.stdout]).toEqual([1, '']);
      expect(live.stderr).toContain('notifyUrl');
      const missing = await trigger('payment.succeeded', '--merchant', '999999999');
      expect([missing.code, missing.stdout]).toEqual([1, '']);
      expect(missing.stderr).toContain('merchant 999999999');
    },
  );
});
