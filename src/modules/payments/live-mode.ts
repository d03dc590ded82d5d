import { AppError, invalidFormat } from '../../errors.js';
import type { KeyMode } from '../api-keys/index.js';

/** Only the sandbox network is connected: a live key cannot pay, and says so (a live key asking for the sandbox is a mistake). */
export function refuseLiveMode(input: { mode: KeyMode; isSandbox?: boolean }, what: string): void {
  if (input.mode !== 'live') return;
  if (input.isSandbox === true) throw invalidFormat('isSandbox', true, 'A live API key cannot make sandbox payments');
  throw new AppError(
    'INSUFFICIENT_PERMISSIONS',
    `No live ${what} is configured for this account; use a test key with the sandbox processors`,
  );
}
