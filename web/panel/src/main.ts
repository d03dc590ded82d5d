import './style.css';
import type { Session } from '../../shared/api-types.js';
import { ApiError, call, canChange, panel, setMode, type Mode } from './api.js';
import { renderAccept } from './accept.js';
import { renderAccount } from './account.js';
import { renderAudit } from './audit.js';
import { renderCustomers } from './customers.js';

import { renderDashboard } from './dashboard.js';
import { renderDevelopers } from './developers.js';
import { listKeys, renderKeys, rotateKey } from './keys.js';
import { renderForgotPassword, renderResetPassword, renderSignInByLink } from './password.js';
import { renderPayment } from './payment.js';
import { renderPaymentRequest, renderPaymentRequests } from './payments.js';
import { renderProcessors } from './processors.js';
import { renderSettings } from './settings.js';
import { renderSignIn } from './sign-in.js';
import { renderTeam } from './team.js';
import { button, h, message, replaceContent } from './ui.js';

/**
 * The control panel: a signed-in shell (mode switch, "test mode" marker, navigation, exposed-key banner)
 * around one page chosen by the address's fragment (#/payments, #/keys, #/settings, #/developers).
 */
const root = document.getElementById('app')!;
let session: Session | null = null;
/** A key the banner's one-click rotate just made: the keys page shows it once. */
let justCreated: { mode: Mode; key: string } | undefined;

const PAGES: Array<{ hash: string; title: string }> = [
  { hash: '#/dashboard', title: 'Dashboard' },
  { hash: '#/payments', title: 'Payments' },
  { hash: '#/customers', title: 'Customers' },
  { hash: '#/processors', title: 'Processors' },
  { hash: '#/keys', title: 'API keys' },
  { hash: '#/settings', title: 'Settings' },
  { hash: '#/developers', title: 'Developers' },
  { hash: '#/audit', title: 'Audit log' },
  { hash: '#/team', title: 'Team' },
  { hash: '#/account', title: 'Account' },
];
/** Where sign-in lands: the payment requests, what a merchant looks for first. */
const LANDING = PAGES.find((p) => p.hash === '#/payments')!;

/** The pages this user's role may open: the audit log is the owners'. */
const pagesOf = (current: Session) => PAGES.filter((p) => p.hash !== '#/audit' || current.user.role === 'owner');

panel.onExpired = () => {
  if (!session) return;
  session = null;
  signIn('Your session has expired. Sign in again.');
};

function signIn(notice?: string): void {
  document.title = 'Sign in · Control panel';
  renderSignIn(
    root,
    (started) => {
      session = started;
      panel.csrf = started.csrfToken;
      // Signed in from the sign-in page itself (#/sign-in, where the signed-out pages lead back): the landing page.
      if (!location.hash || location.hash === '#/sign-in') location.hash = LANDING.hash;
      void render();
    },
    notice,
  );
}

async function render(): Promise<void> {
  if (!session) return;
  const current = session;
  const content = h('main', { id: 'content', tabindex: '-1' });
  const banner = h('div', { class: 'banners' });
  replaceContent(root, shell(current), banner, content);
  void exposedKeyBanner(banner, current);
  const hash = location.hash || LANDING.hash;
  // An address the panel does not know (or a page this role may not open) shows the landing page.
  const page = pagesOf(current).find((p) => hash.startsWith(p.hash)) ?? LANDING;
  document.title = `${page.title} · ${panel.mode === 'test' ? 'Test mode · ' : ''}Control panel`;
  try {
    const detail = /^#\/payments\/(\d+)$/.exec(hash);
    const attempt = /^#\/payments\/attempts\/(\d+)$/.exec(hash);
    if (detail) await renderPaymentRequest(content, Number(detail[1]), canChange(current));
    else if (attempt) await renderPayment(content, Number(attempt[1]));
    else if (page.hash === '#/keys') {
      const created = justCreated;
      justCreated = undefined;
      await renderKeys(content, current, created);
    } else if (page.hash === '#/settings') await renderSettings(content, current);
    else if (page.hash === '#/customers') await renderCustomers(content, current, hash);
    else if (page.hash === '#/processors') await renderProcessors(content, current);
    else if (page.hash === '#/developers') await renderDevelopers(content, current);
    else if (page.hash === '#/audit') await renderAudit(content);
    else if (page.hash === '#/team') await renderTeam(content, current);
    else if (page.hash === '#/account') renderAccount(content, current);
    else if (page.hash === '#/dashboard') await renderDashboard(content);
    else await renderPaymentRequests(content);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return;
    replaceContent(content, message('error', (error as Error).message));
  }
}

function shell(current: Session): HTMLElement {
  const modeSwitch = h(
    'fieldset',
    { class: 'mode-switch' },
    h('legend', {}, 'Mode'),
    ...(['test', 'live'] as Mode[]).map((mode) => {
      const radio = h('input', { type: 'radio', name: 'mode', id: `mode-${mode}`, value: mode });
      radio.checked = panel.mode === mode;
      radio.addEventListener('change', () => {
        setMode(mode);
        void render().then(() => document.getElementById(`mode-${mode}`)?.focus());
      });
      return h('span', {}, radio, h('label', { for: `mode-${mode}` }, mode === 'test' ? 'Test' : 'Live'));
    }),
  );
  const signOut = button('Sign out', async () => {
    try {
      await call('DELETE', '/auth/session');
    } finally {
      session = null;
      signIn('You are signed out.');
    }
  });
  const hash = location.hash || LANDING.hash;
  return h(
    'header',
    { class: `top ${panel.mode}` },
    panel.mode === 'test'
      ? h('p', { class: 'test-marker' }, 'Test mode: you are seeing test data; nothing here moves real money.')
      : null,
    h(
      'div',
      { class: 'bar' },
      h('p', { class: 'merchant' }, current.merchant.name),
      modeSwitch,
      h('p', { class: 'user' }, current.user.email),
      signOut,
    ),
    h(
      'nav',
      { 'aria-label': 'Sections' },
      h(
        'ul',
        {},
        ...pagesOf(current).map((p) =>
          h('li', {}, h('a', { href: p.hash, 'aria-current': hash.startsWith(p.hash) ? 'page' : undefined }, p.title)),
        ),
      ),
    ),
  );
}

/** The legacy checkout `apiKey` flagged a key as exposed: say so on every page, with a one-click rotate. */
async function exposedKeyBanner(banner: HTMLElement, current: Session): Promise<void> {
  const exposed = (await listKeys(current).catch(() => [])).filter((k) => k.exposedAt);
  replaceContent(
    banner,
    ...exposed.map((key) =>
      h(
        'div',
        { class: 'banner', role: 'alert' },
        h(
          'p',
          {},
          `Your ${key.mode} API key (${key.prefix}…) was exposed in a checkout page address. Anyone who saw it can use it: rotate it now.`,
        ),
        canChange(current) &&
          button(`Rotate the ${key.mode} key now`, async () => {
            justCreated = { mode: key.mode, key: await rotateKey(current, key.mode) };
            if (location.hash === '#/keys') await render();
            else location.hash = '#/keys';
          }),
      ),
    ),
  );
}

window.addEventListener('hashchange', () => {
  if (!session) {
    if (!signedOutPage()) signIn();
    return;
  }
  void render().then(() => document.getElementById('content')?.focus());
});

/** The page of a hash that needs no session (password.ts), shown to whoever is signed out; false for others. */
function signedOutPage(): boolean {
  const hash = location.hash;
  if (hash.startsWith('#/forgot-password')) {
    document.title = 'Forgot password · Control panel';
    renderForgotPassword(root);
  } else if (hash.startsWith('#/reset-password')) {
    document.title = 'Choose a new password · Control panel';
    renderResetPassword(root);
  } else if (hash.startsWith('#/sign-in-link')) {
    document.title = 'Sign in · Control panel';
    renderSignInByLink(root, (started) => {
      history.replaceState(null, '', LANDING.hash);
      signedIn(started);
    });
  } else {
    return false;
  }
  return true;
}

/** The invitation e-mail's link (#/accept?token=…): the invitee joins and is signed in (accept.ts), then the panel opens. */
function accept(): Promise<Session> {
  document.title = 'Join your team · Control panel';
  return new Promise((resolve) =>
    renderAccept(root, (started) => {
      history.replaceState(null, '', LANDING.hash);
      resolve(started);
    }),
  );
}

if (location.hash.startsWith('#/accept')) void accept().then(signedIn);
else if (!signedOutPage()) {
  call<Session>('GET', '/auth/session', undefined, { signedIn: false }).then(signedIn, (error: unknown) =>
    signIn(
      error instanceof ApiError && error.error === 'SESSION_EXPIRED'
        ? 'Your session has expired. Sign in again.'
        : undefined,
    ),
  );
}

function signedIn(current: Session): void {
  session = current;
  panel.csrf = current.csrfToken;
  void render();
}
