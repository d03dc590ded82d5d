import { ApiError, call } from './api.js';
import type { Session } from '../../shared/api-types.js';
import { newPasswordInputs, takeLinkToken } from './new-password.js';
import { field, h, message, replaceContent } from './ui.js';

/**
 * The pages for whoever is not signed in, besides the sign-in form: "forgot password" (#/forgot-password),
 * the reset e-mail's page (#/reset-password?token=…) and the sign-in link's page (#/sign-in-link?token=…).
 * A link's token is taken out of the address at once (no copy left in the history).
 */

/** The sign-in form's page, where each of these leads back. */
const signInLink = () => h('p', {}, h('a', { href: '#/sign-in' }, 'Back to sign-in'));

function page(root: HTMLElement, titleId: string, title: string, ...content: Array<Node | null>): void {
  replaceContent(root, h('main', { class: 'sign-in' }, h('h1', { id: titleId }, title), ...content));
}

const unreachable = 'The gateway could not be reached. Try again.';

const LINK_REASONS: Record<string, string> = { expired: 'has expired', used: 'was already used' };

function linkError(error: unknown, again: string): string {
  if (!(error instanceof ApiError)) return unreachable;
  if (error.error === 'LINK_INVALID') {
    return `This link ${LINK_REASONS[String(error.details.reason)] ?? 'is not valid'}. ${again}`;
  }
  if (error.error === 'RATE_LIMIT_EXCEEDED') return 'Too many attempts from this address: wait a minute and try again.';
  return error.message;
}

export function renderForgotPassword(root: HTMLElement): void {
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'username', required: true });
  email.id = 'reset-email';
  const feedback = h('div', { class: 'feedback' });
  const submit = h('button', { type: 'submit' }, 'Send the link');
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'forgot-title' },
    field('Email', email, 'We send a link to choose a new password to this address, if it has an account.'),
    feedback,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!email.value.trim()) {
      replaceContent(feedback, message('error', 'Enter your e-mail address.'));
      email.focus();
      return;
    }
    submit.disabled = true;
    call('POST', '/auth/password-reset', { email: email.value }, { signedIn: false })
      .then(() =>
        replaceContent(
          feedback,
          message(
            'success',
            `If ${email.value.trim()} has an account, a link to choose a new password is on its way to it. It works once, for 1 hour.`,
          ),
        ),
      )
      .catch((error: unknown) => replaceContent(feedback, message('error', linkError(error, ''))))
      .finally(() => (submit.disabled = false));
  });
  page(root, 'forgot-title', 'Forgot your password?', form, signInLink());
  email.focus();
}

export function renderResetPassword(root: HTMLElement): void {
  const token = takeLinkToken('#/reset-password');
  const { password, fields, agree } = newPasswordInputs({
    password: 'New password',
    repeat: 'Repeat the new password',
    hint: 'At least 12 characters.',
  });
  const feedback = h('div', { class: 'feedback' });
  const submit = h('button', { type: 'submit' }, 'Set the new password');
  const form = h('form', { novalidate: true, 'aria-labelledby': 'reset-title' }, ...fields, feedback, submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!agree(feedback, 'The two passwords differ.')) return;
    submit.disabled = true;
    call('POST', '/auth/password-reset/confirm', { token, password: password.value }, { signedIn: false })
      .then(() => {
        page(
          root,
          'reset-title',
          'Choose a new password',
          message('success', 'Your password was changed, and every session of your account was ended.'),
          h('p', {}, h('a', { href: '#/sign-in' }, 'Sign in with the new password')),
        );
      })
      .catch((error: unknown) => {
        replaceContent(feedback, message('error', linkError(error, 'Ask for a new one on the sign-in page.')));
        password.focus();
      })
      .finally(() => (submit.disabled = false));
  });
  page(
    root,
    'reset-title',
    'Choose a new password',
    token ? form : message('error', 'This link is incomplete: open it again from the e-mail.'),
    signInLink(),
  );
  password.focus();
}

export function renderSignInByLink(root: HTMLElement, onSignedIn: (session: Session) => void): void {
  const token = takeLinkToken('#/sign-in-link');
  const feedback = h('div', { class: 'feedback' });
  const submit = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'link-title' },
    h('p', {}, 'This single-use link from your e-mail signs you in to the control panel.'),
    feedback,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    call<Session>('POST', '/auth/session/link', { token }, { signedIn: false })
      .then(onSignedIn)
      .catch((error: unknown) => {
        replaceContent(feedback, message('error', linkError(error, 'Sign in again to get a new one.')));
        submit.disabled = false;
      });
  });
  page(
    root,
    'link-title',
    'Sign in with your e-mailed link',
    token ? form : message('error', 'This link is incomplete: open it again from the e-mail.'),
    signInLink(),
  );
  submit.focus();
}
