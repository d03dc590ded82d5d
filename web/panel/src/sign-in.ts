import { ApiError, call } from './api.js';
import type { Session } from '../../shared/api-types.js';
import { h, message, replaceContent } from './ui.js';

/** The sign-in form (labels "Email" and "Password", button "Sign in": decisions.md), with why we are here. */
export function renderSignIn(root: HTMLElement, onSignedIn: (session: Session) => void, notice?: string): void {
  const email = h('input', { id: 'email', type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = h('input', {
    id: 'password',
    type: 'password',
    name: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const feedback = h('div', { class: 'feedback' }, notice ? message('info', notice) : null);
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'sign-in-title' },
    h('div', { class: 'field' }, h('label', { for: 'email' }, 'Email'), email),
    h('div', { class: 'field' }, h('label', { for: 'password' }, 'Password'), password),
    feedback,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!email.value.trim() || !password.value) {
      replaceContent(feedback, message('error', 'Enter your e-mail address and password.'));
      return;
    }
    submit.disabled = true;
    call<Session>('POST', '/auth/session', { email: email.value, password: password.value }, { signedIn: false })
      .then(onSignedIn)
      .catch((error: unknown) => {
        replaceContent(feedback, message('error', signInError(error)));
        password.value = '';
        password.focus();
      })
      .finally(() => (submit.disabled = false));
  });
  replaceContent(
    root,
    h(
      'main',
      { class: 'sign-in' },
      h('h1', { id: 'sign-in-title' }, 'Sign in to the control panel'),
      form,
      h('p', {}, h('a', { href: '#/forgot-password' }, 'Forgot password?')),
    ),
  );
  email.focus();
}

function signInError(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The gateway could not be reached. Try again.';
  if (error.error === 'ACCOUNT_LOCKED') {
    const minutes = Math.ceil((Number(error.details.retryAfter) || 1800) / 60);
    if (error.details.emailLink) {
      return `Too many failed sign-in attempts for this account from several places: for the next ${minutes} minutes the password alone does not sign in. If your password was right, we sent you a sign-in link by e-mail.`;
    }
    return `Too many failed sign-in attempts from this address: this account is locked. Try again in ${minutes} minutes, or reset your password.`;
  }
  if (error.error === 'RATE_LIMIT_EXCEEDED')
    return 'Too many sign-in attempts from this address: wait a minute and try again.';
  if (error.error === 'INVALID_CREDENTIALS') return 'The e-mail address or password is incorrect.';
  return error.message;
}
