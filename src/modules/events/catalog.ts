/**
 * Every event the gateway announces, keyed by type, with the payload it carries (the object as the
 * API shows it). The emitting modules add their types next to the code that emits them, by
 * augmenting this interface (payments/events.ts, payment-requests/events.ts), so the compiler
 * checks every outbox insert against it and a consumer reads each payload's shape from here.
 */
export interface EventCatalog {
  /** Declared for the notifications work: an API key was found in a public place and revoked. */
  'api_key.exposed': { keyId: number; mode: 'test' | 'live'; exposedAt: string };
  /** Declared for the notifications work: a merchant still calls an API version that is being retired. */
  'api.version.deprecated': {
    feature: string;
    description: string;
    deprecatedAt: string;
    sunsetAt: string;
    migrationNote: string;
  };
}

export type EventType = keyof EventCatalog;
