/** The cards module: card-number rules, the check of a typed card, and the vault that encrypts PANs. */
export { isExpired } from './card-number.js';
export { checkCard, vaultFields, type CheckedCard, type TypedCard } from './checked-card.js';
export { createVault, parseVaultKeys, type Vault } from './vault.js';
