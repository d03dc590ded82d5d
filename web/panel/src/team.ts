import { call, when } from './api.js';
import type { Role, Session, Team, TeamMemberChange } from '../../shared/api-types.js';
import { announce, button, field, h, message, replaceContent, table } from './ui.js';

const ROLES: Role[] = ['owner', 'developer', 'viewer'];

/** A labelled role picker (the label is visible, or given to assistive technology only for a table cell). */
function rolePicker(id: string, current: Role, label?: string): HTMLSelectElement {
  const select = h('select', { id, 'aria-label': label });
  for (const role of ROLES) select.append(h('option', { value: role, selected: role === current }, role));
  return select;
}

/** What a role change or removal did to the user's API keys (calls with them are refused from now on). */
const keysRevoked = (count: number) =>
  count === 0 ? '' : count === 1 ? ' Their API key was revoked.' : ` Their ${count} API keys were revoked.`;

/**
 * The team: every role reads it (docs/decisions.md "Team"); owners invite by e-mail with a role, revoke
 * an open invitation, change a role and remove a user. The gateway refuses the rest; the page does not offer it.
 */
export async function renderTeam(root: HTMLElement, session: Session): Promise<void> {
  const team = await call<Team>('GET', '/team');
  const owner = session.user.role === 'owner';
  const feedback = h('div', { class: 'feedback' });
  /** Does one change and says how it went (`said` may read the answer); true when it was done. */
  const act = async <T>(work: () => Promise<T>, said: string | ((answer: T) => string)): Promise<boolean> => {
    let answer: T;
    try {
      answer = await work();
    } catch (error) {
      replaceContent(feedback, message('error', (error as Error).message));
      return false;
    }
    const done = typeof said === 'string' ? said : said(answer);
    await renderTeam(root, session);
    const after = root.querySelector<HTMLElement>('.feedback');
    if (after) replaceContent(after, message('success', done));
    announce(done);
    return true;
  };

  const memberRows = team.members.map((m) => {
    const you = m.userId === session.user.id ? ' (you)' : '';
    if (!owner) return [m.email + you, m.role, when(m.since)];
    const picker = rolePicker(`role-${m.userId}`, m.role, `Role of ${m.email}`);
    const change = button(
      'Change role',
      async () => {
        const role = picker.value as Role;
        const demotion = role === 'viewer' && m.role !== 'viewer';
        if (demotion && !confirm(`Make ${m.email} a viewer? Viewers hold no API key: theirs stop working at once.`))
          return;
        const changed = await act(
          () => call<TeamMemberChange>('PATCH', `/team/members/${m.userId}`, { role }),
          (answer) => `${m.email} is now ${role}.${keysRevoked(answer.apiKeysRevoked)}`,
        );
        // Your own new role: the panel starts again with it (what it offers depends on the role).
        if (changed && you && role !== m.role) location.reload();
      },
      { 'aria-label': `Change role of ${m.email}` },
    );
    const remove = button(
      'Remove',
      async () => {
        if (!confirm(`Remove ${m.email} from the team? Their sessions end and their API keys stop working at once.`))
          return;
        await act(
          () => call<TeamMemberChange>('DELETE', `/team/members/${m.userId}`),
          (answer) => `${m.email} was removed.${keysRevoked(answer.apiKeysRevoked)}`,
        );
      },
      { 'aria-label': `Remove ${m.email}` },
    );
    return [m.email + you, h('span', { class: 'inline' }, picker, change), when(m.since), remove];
  });

  const invitationRows = team.invitations.map((i) => [
    i.email,
    i.role,
    i.invitedBy ?? '—',
    i.expired ? h('strong', {}, `Expired ${when(i.expiresAt)}`) : when(i.expiresAt),
    ...(owner
      ? [
          button(
            'Revoke',
            async () => {
              await act(
                () => call('DELETE', `/team/invitations/${i.invitationId}`),
                `The invitation to ${i.email} was revoked.`,
              );
            },
            {
              'aria-label': `Revoke the invitation to ${i.email}`,
            },
          ),
        ]
      : []),
  ]);

  replaceContent(
    root,
    h('h1', {}, 'Team'),
    h('p', {}, 'Owners manage the team and read the audit log; developers do everything else; viewers only read.'),
    feedback,
    table('Users of this merchant', owner ? ['Email', 'Role', 'Since', ''] : ['Email', 'Role', 'Since'], memberRows),
    h('h2', {}, 'Pending invitations'),
    team.invitations.length
      ? table(
          'Invitations not accepted yet',
          owner
            ? ['Email', 'Role', 'Invited by', 'Link works until', '']
            : ['Email', 'Role', 'Invited by', 'Link works until'],
          invitationRows,
        )
      : h('p', {}, 'No pending invitation.'),
    owner ? inviteForm(act) : null,
  );
}

function inviteForm(act: (work: () => Promise<unknown>, said: string) => Promise<boolean>): HTMLElement {
  const email = h('input', { type: 'email', name: 'invite-email', autocomplete: 'off', required: true });
  email.id = 'invite-email';
  const role = rolePicker('invite-role', 'viewer');
  const form = h(
    'form',
    { class: 'inline', novalidate: true, 'aria-labelledby': 'invite-title' },
    field('Email address', email),
    h('div', { class: 'field' }, h('label', { for: 'invite-role' }, 'Role'), role),
    h('button', { type: 'submit' }, 'Send invitation'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const to = email.value.trim();
    void act(
      () => call('POST', '/team/invitations', { email: to, role: role.value }),
      `An invitation was sent to ${to}. The link works once, for 7 days.`,
    );
  });
  return h(
    'section',
    { 'aria-labelledby': 'invite-title' },
    h('h2', { id: 'invite-title' }, 'Invite a teammate'),
    form,
  );
}
