export { type AdyenSimulator, type AdyenSimulatorOptions, notificationHmac, startAdyenSimulator } from './server.js';
export { ADYEN_CHECKOUT_TEST_BASE, adyenClientForSimulator } from './sdk-client.js';
export { HOLDER_NAME_REFUSALS, THREE_D_SECURE_CARDS } from './outcomes.js';
export type { Fault } from '../shared/faults.js';
export type { Violation } from '../shared/contract.js';
export { type LedgerEntry, totalsFor } from '../shared/ledger.js';
