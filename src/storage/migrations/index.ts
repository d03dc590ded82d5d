import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_foundation.js';
import * as m0002 from './0002_jobs.js';
import * as m0003 from './0003_payment_requests_customers.js';
import * as m0004 from './0004_checkout_sessions.js';
import * as m0005 from './0005_idempotency.js';
import * as m0006 from './0006_callback_events.js';
import * as m0007 from './0007_payments.js';
import * as m0008 from './0008_callback_raw_body.js';
import * as m0009 from './0009_idempotency_recovery.js';
import * as m0010 from './0010_payment_outcomes.js';
import * as m0011 from './0011_notifications.js';
import * as m0012 from './0012_reporting_indexes.js';
import * as m0013 from './0013_api_key_cache.js';
import * as m0014 from './0014_upi_intent.js';
import * as m0015 from './0015_control_panel.js';
import * as m0016 from './0016_wallet_in_checkout.js';
import * as m0017 from './0017_team_invitations.js';
import * as m0018 from './0018_payments_awaiting_payer.js';
import * as m0019 from './0019_fewer_index_entries.js';
import * as m0020 from './0020_recovery_objects.js';
import * as m0021 from './0021_outbox_queue.js';
import * as m0022 from './0022_delivery_endpoints.js';
import * as m0023 from './0023_keyed_idempotency_fingerprints.js';
import * as m0024 from './0024_sign_in_and_passwords.js';
import * as m0025 from './0025_callback_replays_and_secrets.js';
import * as m0026 from './0026_payment_request_options.js';
import * as m0027 from './0027_keys_of_viewers_revoked.js';
import * as m0028 from './0028_payment_search_and_failures.js';
import * as m0029 from './0029_payer_defaults.js';
import * as m0030 from './0030_job_retention.js';
import * as m0031 from './0031_processor_connections.js';
import * as m0032 from './0032_processor_routing.js';
import * as m0033 from './0033_processor_webhooks.js';

/** Versioned migrations, applied in name order at start. Append only; never edit a released one. */
const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_jobs': m0002,
  '0003_payment_requests_customers': m0003,
  '0004_checkout_sessions': m0004,
  '0005_idempotency': m0005,
  '0006_callback_events': m0006,
  '0007_payments': m0007,
  '0008_callback_raw_body': m0008,
  '0009_idempotency_recovery': m0009,
  '0010_payment_outcomes': m0010,
  '0011_notifications': m0011,
  '0012_reporting_indexes': m0012,
  '0013_api_key_cache': m0013,
  '0014_upi_intent': m0014,
  '0015_control_panel': m0015,
  '0016_wallet_in_checkout': m0016,
  '0017_team_invitations': m0017,
  '0018_payments_awaiting_payer': m0018,
  '0019_fewer_index_entries': m0019,
  '0020_recovery_objects': m0020,
  '0021_outbox_queue': m0021,
  '0022_delivery_endpoints': m0022,
  '0023_keyed_idempotency_fingerprints': m0023,
  '0024_sign_in_and_passwords': m0024,
  '0025_callback_replays_and_secrets': m0025,
  '0026_payment_request_options': m0026,
  '0027_keys_of_viewers_revoked': m0027,
  '0028_payment_search_and_failures': m0028,
  '0029_payer_defaults': m0029,
  '0030_job_retention': m0030,
  '0031_processor_connections': m0031,
  '0032_processor_routing': m0032,
  '0033_processor_webhooks': m0033,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
