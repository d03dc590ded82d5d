import { field, h, message, replaceContent } from './ui.js';

/**
 * What the pages that set a password share: the invitation's, the reset link's and the account's.
 * An e-mailed link's token is taken out of the address bar at once (no copy left in the history).
 */
export function takeLinkToken(hash: string): string {
  const token = new URLSearchParams(location.hash.split('?')[1] ?? '').get('token') ?? '';
  history.replaceState(null, '', `${location.pathname}${hash}`);
  return token;
}

/** A new password typed twice. */
export function newPasswordInputs(labels: { password: string; repeat: string; hint: string }) {
  const input = (name: string) => {
    const el = h('input', { type: 'password', name, autocomplete: 'new-password', required: true });
    el.id = name;
    return el;
  };
  const password = input('new-password');
  const repeat = input('repeat-password');
  return {
    password,
    fields: [field(labels.password, password, labels.hint), field(labels.repeat, repeat)],
    /** False, with the reason shown in `feedback`, when the two differ. */
    agree: (feedback: HTMLElement, differ: string): boolean => {
      if (password.value === repeat.value) return true;
      replaceContent(feedback, message('error', differ));
      repeat.focus();
      return false;
    },
  };
}
