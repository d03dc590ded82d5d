import { ApiError, call } from './api.js';
import type { Session } from '../../shared/api-types.js';
import { newPasswordInputs, takeLinkToken } from './new-password.js';
import { h, message, replaceContent } from './ui.js';

/**
 * The page an invitation e-mail links to (#/accept?token=…): the invitee chooses a password and is signed
 * in with the invited role. The token is taken out of the address at once (no copy left in the history).
 */
export function renderAccept(root: HTMLElement, onSignedIn: (session: Session) => void): void {
  const token = takeLinkToken('#/accept');
  const { password, fields, agree } = newPasswordInputs({
    password: 'Choose a password',
    repeat: 'Repeat the password',
    hint: 'At least 12 characters.',
  });
  const feedback = h('div', { class: 'feedback' });
  const submit = h('button', { type: 'submit' }, 'Join the team');
  const form = h('form', { novalidate: true, 'aria-labelledby': 'accept-title' }, ...fields, feedback, submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!agree(feedback, 'The two passwords differ.')) return;
    submit.disabled = true;
    call<Session>('POST', '/team/invitations/accept', { token, password: password.value }, { signedIn: false })
      .then(onSignedIn)
      .catch((error: unknown) => {
        replaceContent(feedback, message('error', acceptError(error)));
        password.focus();
      })
      .finally(() => (submit.disabled = false));
  });
  replaceContent(
    root,
    h(
      'main',
      { class: 'sign-in' },
      h('h1', { id: 'accept-title' }, 'Join your team'),
      token ? form : message('error', 'This invitation link is incomplete: open it again from the e-mail.'),
    ),
  );
  password.focus();
}

const REASONS: Record<string, string> = { expired: 'has expired', used: 'was already used', revoked: 'was revoked' };

function acceptError(error: unknown): string {
  if (!(error instanceof ApiError)) return 'The gateway could not be reached. Try again.';
  if (error.error === 'INVITATION_INVALID') {
    const why = REASONS[String(error.details.reason)];
    return `This invitation link ${why ?? 'is not valid'}. Ask an owner of the team for a new invitation.`;
  }
  if (error.error === 'EMAIL_ALREADY_REGISTERED') return 'This e-mail address already has an account: sign in instead.';
  return error.message;
}
