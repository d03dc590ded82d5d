import { AppError, invalidFormat } from '../../errors.js';
import type { KeyMode } from '../api-keys/index.js';

/** A live key asking for the sandbox (`isSandbox: true`) is a mistake, said as such. */
export function refuseSandboxInLiveMode(input: { mode: KeyMode; isSandbox?: boolean }): void {
  if (input.mode === 'live' && input.isSandbox === true)
    throw invalidFormat('isSandbox', true, 'A live API key cannot make sandbox payments');
}

/** Methods with no live provider (UPI, wallets): a live key cannot pay with them, and says so. */
export function refuseLiveMode(input: { mode: KeyMode; isSandbox?: boolean }, what: string): void {
  if (input.mode !== 'live') return;
  refuseSandboxInLiveMode(input);
  throw new AppError(
    'INSUFFICIENT_PERMISSIONS',
    `No live ${what} is configured for this account; use a test key with the sandbox processors`,
  );
}
