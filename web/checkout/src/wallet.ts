import type { Payer } from '../../shared/api-types.js';
import { h } from '../../shared/dom.js';
import { attentionNeeded, emailError } from './form.js';

/** What the wallet panel hands over: the wallet path's required fields, and the payer fields the merchant gave. */
export interface WalletSubmission extends Partial<Payer> {
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
 * The wallet panel: the payer's name and e-mail (the wallet path requires them) unless the merchant gave
 * them, the sandbox outcome, and one button per wallet. Checks run before anything is sent, errors tied
 * to their inputs.
 */
export function walletPanel(options: {
  /** The payer fields the merchant gave: not shown, sent as given. */
  known: Partial<Payer>;
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
  const { known } = options;
  const name = field('name', 'Your name', 'name', 'text');
  const email = field('email', 'Email', 'email', 'email');
  const askName = known.name === undefined;
  const askEmail = known.email === undefined;
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
      [name, askName ? check(name, name.input.value.trim() ? null : 'Enter your name.') : null],
      [email, askEmail ? check(email, emailError(email.input.value)) : null],
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
      ...known,
      name: known.name ?? name.input.value.trim(),
      email: known.email ?? email.input.value.trim(),
      token: chosen?.value ?? 'approve',
      wallet: { walletType },
    });
  };

  const element = h(
    'div',
    { class: 'wallet' },
    askName ? name.row : null,
    askEmail ? email.row : null,
    h('fieldset', { class: 'methods' }, h('legend', {}, 'Test wallet: what it answers'), ...outcomes),
    ...WALLETS.map(({ walletType, label }) => {
      const button = h('button', { type: 'button', class: 'pay wallet-pay' }, `Pay with ${label}`);
      button.addEventListener('click', () => pay(walletType));
      return button;
    }),
  );
  const first = () =>
    askName ? name.input : askEmail ? email.input : element.querySelector<HTMLInputElement>('input[type="radio"]');
  return { element, focus: () => first()?.focus() };
}
