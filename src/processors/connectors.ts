import { createHash } from 'node:crypto';
import { createAdyenConnector, type AdyenCredentials } from './adyen/index.js';
import { createStripeConnector, type AttemptJournal } from './stripe/index.js';
import type { Processor } from './types.js';

/** A merchant's connection to a real processor, as the connectors need it: its id and decrypted credentials. */
export type ConnectorTarget =
  | { connectionId: string; processor: 'stripe'; credentials: { secretKey: string } }
  | { connectionId: string; processor: 'adyen'; credentials: AdyenCredentials };

export interface ConnectorSettings {
  /** STRIPE_API_BASE: default Stripe's own host. */
  stripeApiBase?: string;
  /** ADYEN_CHECKOUT_API_BASE: default the host the SDK picks for the connection's environment. */
  adyenApiBase?: string;
  /** Accept a self-signed certificate from the Adyen base (a loopback test server only: config.ts checks). */
  adyenUnverifiedTls?: boolean;
  timeoutMs: number;
  /** Where the Stripe connector keeps its authorization attempts, so any instance reconciles them. */
  stripeJournal: AttemptJournal;
}

/**
 * The connectors of merchants' connections, one per connection and credentials: a PATCH of the
 * credentials makes a new client, the old one is dropped. Clients are kept because each holds its
 * keep-alive connections to the processor.
 */
export function createConnectorPool(settings: ConnectorSettings) {
  const connectors = new Map<string, { fingerprint: string; connector: Processor }>();

  const create = (target: ConnectorTarget): Processor =>
    target.processor === 'stripe'
      ? createStripeConnector({
          credentials: target.credentials,
          apiBase: settings.stripeApiBase,
          timeoutMs: settings.timeoutMs,
          journal: settings.stripeJournal,
        })
      : createAdyenConnector({
          credentials: target.credentials,
          apiBase: settings.adyenApiBase,
          timeoutMs: settings.timeoutMs,
          unverifiedTls: settings.adyenUnverifiedTls,
        });

  return {
    connectorFor(target: ConnectorTarget): Processor {
      const fingerprint = createHash('sha256').update(JSON.stringify(target.credentials)).digest('base64url');
      const known = connectors.get(target.connectionId);
      if (known?.fingerprint === fingerprint) return known.connector;
      const connector = create(target);
      connectors.set(target.connectionId, { fingerprint, connector });
      return connector;
    },
    close(): void {
      connectors.clear();
    },
  };
}

export type ConnectorPool = ReturnType<typeof createConnectorPool>;
