import { h } from './dom.js';
import { attentionNeeded, emailError } from './form.js';

/** What the wallet panel hands over: the wallet path's required fields. */
export interface WalletSubmission {
  name: string;
  email: string;
  token: string;
  wallet: { walletType: 'googlepay' | 'applepay' };
}

const WALLETS = [
  { walletType: 'googlepay', label: 'Google Pay' },
  { walletType: 'applepay', label: 'Apple Pay' },
] as const;

/**
 * The sandbox's wallet tokens (docs/sandbox.md "Wallet tokens"): the payer picks the outcome the real
 * wallet sheet would produce. A live wallet needs the wallet's own script, which this page's CSP and its
 * no-third-party rule keep out; the page offers wallets in test mode only (docs/decisions.md).
 */
const SANDBOX_TOKENS = [
  { token: 'approve', label: 'Approve' },
  { token: 'wallet_decline', label: 'Decline' },
  { token: 'wallet_3ds', label: 'Ask for a 3-D Secure check' },
] as const;

/**
 * The wallet panel: the payer's name and e-mail (the wallet path requires them), the sandbox outcome,
 * and one button per wallet. Checks run before anything is sent, errors tied to their inputs.
 */
export function walletPanel(options: {
  announce: (message: string) => void;
  onSubmit: (wallet: WalletSubmission) => void;
}): { element: HTMLElement; focus(): void } {
  const field = (name: string, label: string, autocomplete: string, type: string) => {
    const id = `w-${name}`;
    const input = h('input', {
      id,
      name,
      type,
      autocomplete,
      required: true,
      maxlength: '100',
      spellcheck: 'false',
      'aria-describedby': `${id}-error`,
    });
    const error = h('p', { class: 'field-error', id: `${id}-error` });
    return { input, error, row: h('div', { class: 'field' }, h('label', { for: id }, label), input, error) };
  };
  const name = field('name', 'Your name', 'name', 'text');
  const email = field('email', 'Email', 'email', 'email');
  const outcomes = SANDBOX_TOKENS.map(({ token, label }, index) => {
    const input = h('input', { type: 'radio', name: 'wallet-outcome', id: `w-${token}`, value: token });
    input.checked = index === 0;
    return h('label', { class: 'method', for: input.id }, input, ` ${label}`);
  });

  const check = (target: typeof name, message: string | null) => {
    target.error.textContent = message ?? '';
    if (message) target.input.setAttribute('aria-invalid', 'true');
    else target.input.removeAttribute('aria-invalid');
    return message;
  };
  const pay = (walletType: WalletSubmission['wallet']['walletType']) => {
    const problems = [
      [name, check(name, name.input.value.trim() ? null : 'Enter your name.')],
      [email, check(email, emailError(email.input.value))],
    ] as const;
    const failed = problems.filter(([, message]) => message);
    if (failed.length) {
      // As in the card form: the field's error is read as it takes focus; the live region only counts.
      options.announce(attentionNeeded(failed.length));
      failed[0][0].input.focus();
      return;
    }
    const chosen = element.querySelector<HTMLInputElement>('input[name="wallet-outcome"]:checked');
    options.onSubmit({
      name: name.input.value.trim(),
      email: email.input.value.trim(),
      token: chosen?.value ?? 'approve',
      wallet: { walletType },
    });
  };

  const element = h(
    'div',
    { class: 'wallet' },
    name.row,
    email.row,
    h('fieldset', { class: 'methods' }, h('legend', {}, 'Test wallet: what it answers'), ...outcomes),
    ...WALLETS.map(({ walletType, label }) => {
      const button = h('button', { type: 'button', class: 'pay wallet-pay' }, `Pay with ${label}`);
      button.addEventListener('click', () => pay(walletType));
      return button;
    }),
  );
  return { element, focus: () => name.input.focus() };
}
