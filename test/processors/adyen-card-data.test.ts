import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

// Card data is never kept: after an authorization that got no answer, and after queryStatus, the card
// number is nowhere in the process's JavaScript heap. The scenario and the heap search run in a process
// of their own (adyen-card-data.child.ts says how and why).
const CHILD = new URL('./adyen-card-data.child.ts', import.meta.url).pathname;
const TSX = new URL('../../node_modules/tsx/dist/esm/index.mjs', import.meta.url).href;

describe('Adyen connector: card data', () => {
  it('keeps no card number after an authorization that got no answer, nor after queryStatus', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', TSX, CHILD], { timeout: 25_000 });
    const found = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(found.outcome).toEqual({ kind: 'timeout' });
    expect(found.status).toEqual({ processorPaymentId: found.reference, status: 'pending' });
    // The control number the child holds is found: the search can find one.
    expect(found.controlFound).toBe(true);
    expect(found.controlLength).toBe(16);
    expect(found.panFound).toBe(false);
  });
});
