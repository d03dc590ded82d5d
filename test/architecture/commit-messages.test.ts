import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = new URL('../../scripts/check-commits.sh', import.meta.url).pathname;
const dir = mkdtempSync(path.join(tmpdir(), 'commit-message-'));

/** What the commit-msg hook says of a message: '' when it is accepted. */
function verdict(message: string): string {
  const file = path.join(dir, 'MSG');
  writeFileSync(file, message);
  try {
    execFileSync('bash', [SCRIPT, '--message', file], { stdio: 'pipe' });
    return '';
  } catch (error) {
    return String((error as { stderr: Buffer }).stderr);
  }
}

describe('commit messages', () => {
  it('accepts a short imperative subject, a blank line and a body', () => {
    expect(verdict('Add the Stripe connector\n\nMerchants bring their own account.\n')).toBe('');
    // Git's own comment lines (the editor template) are not part of the message.
    expect(verdict('Add the Stripe connector\n\nWhy.\n# Please enter the commit message\n')).toBe('');
  });

  it('refuses a subject over 72 characters, counted in characters rather than bytes', () => {
    expect(verdict(`${'a'.repeat(73)}\n\nbody\n`)).toMatch(/73 characters/);
    expect(verdict(`${'é'.repeat(72)}\n\nbody\n`)).toBe('');
  });

  it('refuses a message without a body, a full stop, or a missing blank line', () => {
    expect(verdict('Add a thing\n')).toMatch(/no body/);
    expect(verdict('Add a thing.\n\nbody\n')).toMatch(/full stop/);
    expect(verdict('Add a thing\nbody straight after\n')).toMatch(/no blank line/);
  });
});
