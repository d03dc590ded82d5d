import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';
import { newId, SandboxError, type Timers } from './util.js';

/** Callback paths on the gateway. */
export type CallbackPath = '/callbacks/svc' | '/callbacks/svc-gateway' | '/callbacks/3ds';

/** The body of every callback (decisions.md "Callbacks received"); `/callbacks/3ds` adds the 3-D Secure fields. */
export interface CallbackEvent {
  eventId: string;
  transactionId: string;
  status: string;
  amount: number;
  currency: string;
  timestamp: string;
  providerData: Record<string, unknown>;
  threeDsResult?: 'Y' | 'N';
  eci?: string;
  authenticationValue?: string;
}

/** One sent callback as `GET /control/callbacks` shows it. */
export interface CallbackRecord {
  path: CallbackPath;
  body: CallbackEvent;
  /** HTTP status of the latest attempt; null while none answered (refused, timed out). */
  status: number | null;
  attempts: number;
  delivered: boolean;
}

/** Test control `X-Sandbox-Callback`. */
export type CallbackMode =
  { kind: 'normal' } | { kind: 'duplicate' } | { kind: 'late'; ms: number } | { kind: 'out-of-order' };

export function parseCallbackMode(header: string | undefined): CallbackMode {
  if (header === undefined || header === 'normal') return { kind: 'normal' };
  if (header === 'duplicate' || header === 'out-of-order') return { kind: header };
  const late = /^late:(\d{1,7})$/.exec(header);
  if (late) return { kind: 'late', ms: Number(late[1]) };
  throw new SandboxError(
    400,
    'invalid_request',
    'X-Sandbox-Callback must be normal, duplicate, late:<ms> or out-of-order',
  );
}

export const MAX_ATTEMPTS = 6;
const FIRST_RETRY_MS = 1000;
const TIMEOUT_MS = 30_000;

export function signatureOf(secret: string, raw: Buffer): string {
  return createHmac('sha512', secret).update(raw).digest('hex');
}

interface Delivery {
  record: CallbackRecord;
  raw: Buffer;
}

/**
 * Sends signed callbacks to the gateway, at least once: a non-2xx answer, a refused connection
 * or no answer within 30 s is retried after 1 s, 2 s, 4 s … (6 attempts in all). Every callback
 * is recorded for `GET /control/callbacks` and can be re-sent byte for byte.
 */
export class CallbackSender {
  private readonly deliveries: Delivery[] = [];
  private readonly agent = new Agent({
    keepAliveTimeout: 10_000,
    connectTimeout: TIMEOUT_MS,
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });
  private readonly aborter = new AbortController();

  constructor(
    private gatewayUrl: string,
    private readonly secret: string,
    private readonly timers: Timers,
  ) {}

  setGatewayUrl(url: string): void {
    this.gatewayUrl = url.replace(/\/+$/, '');
  }

  records(): CallbackRecord[] {
    return this.deliveries.map((d) => d.record);
  }

  /**
   * Sends an outcome event the way `X-Sandbox-Callback` asks: now, `late` by some ms, twice
   * with the same eventId (`duplicate`), or followed by a stale `pending` (`out-of-order`).
   */
  dispatch(path: CallbackPath, event: CallbackEvent, mode: CallbackMode = { kind: 'normal' }): void {
    this.timers.later(mode.kind === 'late' ? mode.ms : 0, async () => {
      const raw = Buffer.from(JSON.stringify(event));
      await this.send(path, raw);
      if (mode.kind === 'duplicate') await this.send(path, raw);
      if (mode.kind === 'out-of-order') {
        const stale: CallbackEvent = {
          eventId: newId('evt'),
          transactionId: event.transactionId,
          status: 'pending',
          amount: event.amount,
          currency: event.currency,
          timestamp: new Date(Date.parse(event.timestamp) - 1000).toISOString(),
          providerData: { reference: event.providerData.reference },
        };
        await this.send(path, Buffer.from(JSON.stringify(stale)));
      }
    });
  }

  /** Re-sends the last callback of a transaction, same bytes (so same eventId). */
  resend(transactionId: string): Promise<CallbackRecord> {
    const last = [...this.deliveries].reverse().find((d) => d.record.body.transactionId === transactionId);
    if (!last) throw new SandboxError(404, 'not_found', `no callback was sent for ${transactionId}`);
    return this.send(last.record.path, last.raw);
  }

  /** Records and sends one callback; resolves after the first attempt (retries go on in the background). */
  send(path: CallbackPath, raw: Buffer): Promise<CallbackRecord> {
    const delivery: Delivery = {
      raw,
      record: {
        path,
        body: JSON.parse(raw.toString('utf8')) as CallbackEvent,
        status: null,
        attempts: 0,
        delivered: false,
      },
    };
    this.deliveries.push(delivery);
    return new Promise((resolve) => {
      void this.deliver(delivery, () => resolve(delivery.record));
    });
  }

  private async deliver({ record, raw }: Delivery, firstAttemptDone: () => void): Promise<void> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS && !this.timers.isClosed; attempt++) {
      if (attempt > 1) await this.timers.sleep(FIRST_RETRY_MS * 2 ** (attempt - 2));
      if (this.timers.isClosed) break;
      record.attempts = attempt;
      record.status = await this.attempt(record.path, raw);
      if (attempt === 1) firstAttemptDone();
      if (record.status !== null && record.status >= 200 && record.status < 300) {
        record.delivered = true;
        return;
      }
    }
    firstAttemptDone(); // settles the caller if the sandbox closed before any attempt
  }

  /** One POST; the HTTP status, or null when nothing answered in time. */
  private async attempt(path: CallbackPath, raw: Buffer): Promise<number | null> {
    try {
      const response = await request(`${this.gatewayUrl}${path}`, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          'content-type': 'application/json',
          'x-webhook-signature': signatureOf(this.secret, raw),
          'user-agent': 'sandbox-acquirer/1',
        },
        body: raw,
        signal: AbortSignal.any([this.aborter.signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
      await response.body.dump();
      return response.statusCode;
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    this.aborter.abort();
    await this.agent.destroy();
  }
}
