export {
  STRIPE_DOCUMENT_API_VERSION,
  type StripeSimulator,
  type StripeSimulatorOptions,
  startStripeSimulator,
} from './server.js';
export { TEST_CARDS as STRIPE_TEST_CARDS } from './cards.js';
export type { Fault } from '../shared/faults.js';
export type { Violation } from '../shared/contract.js';
export { type LedgerEntry, totalsFor } from '../shared/ledger.js';
