/** The merchants module: merchant accounts and their users. */
export { checkedEmail, createMerchant, validateMerchantInput } from './create-merchant.js';
export { normalizeEmail } from '../../lib/email.js';
export { assertPasswordRules, hashPassword, verifyPassword } from './passwords.js';
export { setMerchantStatus, MERCHANT_STATUSES } from './set-merchant-status.js';
export { findUserByEmail, merchantExists } from './repository.js';
export { seedDemoMerchant, type DemoCredentials } from './demo.js';
export type { MerchantStatus, UserRole, MerchantsTable, UsersTable } from './tables.js';
