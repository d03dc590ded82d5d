import { ApiError, call, panel } from './api.js';
import type { Session } from '../../shared/api-types.js';
import { newPasswordInputs } from './new-password.js';
import { field, h, message, replaceContent } from './ui.js';

/** The signed-in user's own account: who they are, and the password change (every role may change theirs). */
export function renderAccount(root: HTMLElement, session: Session): void {
  const current = h('input', {
    type: 'password',
    name: 'current-password',
    autocomplete: 'current-password',
    required: true,
  });
  current.id = 'current-password';
  const { password, fields, agree } = newPasswordInputs({
    password: 'New password',
    repeat: 'Repeat the new password',
    hint: 'At least 12 characters. Every other session of yours ends.',
  });
  const feedback = h('div', { class: 'feedback' });
  const submit = h('button', { type: 'submit' }, 'Change password');
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'password-title' },
    field('Current password', current),
    ...fields,
    feedback,
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!current.value || !password.value) {
      replaceContent(feedback, message('error', 'Enter your current password and a new one.'));
      return;
    }
    if (!agree(feedback, 'The two new passwords differ.')) return;
    submit.disabled = true;
    // Not "signed in" for the panel's 401 handling: a wrong current password is a 401 too.
    call('PUT', '/auth/password', { currentPassword: current.value, newPassword: password.value }, { signedIn: false })
      .then(() => {
        form.reset();
        replaceContent(
          feedback,
          message('success', 'Your password was changed. Every other session and access token of yours was ended.'),
        );
      })
      .catch((error: unknown) => {
        if (error instanceof ApiError && error.error === 'INVALID_CREDENTIALS') {
          replaceContent(feedback, message('error', 'The current password is incorrect.'));
          current.value = '';
          current.focus();
          return;
        }
        if (error instanceof ApiError && error.status === 401) return panel.onExpired(error);
        if (error instanceof ApiError && error.error === 'ACCOUNT_LOCKED') {
          const minutes = Math.ceil((Number(error.details.retryAfter) || 1800) / 60);
          replaceContent(
            feedback,
            message('error', `Too many wrong passwords from here: try again in ${minutes} minutes.`),
          );
          return;
        }
        replaceContent(feedback, message('error', error instanceof Error ? error.message : String(error)));
      })
      .finally(() => (submit.disabled = false));
  });
  replaceContent(
    root,
    h('h1', {}, 'Your account'),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Email'),
      h('dd', {}, session.user.email),
      h('dt', {}, 'Role'),
      h('dd', {}, session.user.role),
    ),
    h('h2', { id: 'password-title' }, 'Change password'),
    form,
  );
}
