import { expect } from 'vitest';
import { textOf, type ReceivedMail } from '../notifications/smtp.js';

/** The client address a call comes from: the test gateway believes X-Forwarded-For from loopback (TRUSTED_PROXIES). */
export const from = (address: string, headers: Record<string, string> = {}) => ({
  headers: { ...headers, 'x-forwarded-for': address },
});

/** The link of a password-reset or sign-in mail, and its token. */
export function accountLink(mail: ReceivedMail, page: 'reset-password' | 'sign-in-link') {
  const match = new RegExp(`(https?://\\S+/panel/#/${page}\\?token=((?:pwr|sil)_[\\w-]+))`).exec(textOf(mail));
  expect(match, textOf(mail)).not.toBeNull();
  return { link: match![1], token: match![2] };
}

/** An error body without the parts that differ on every answer. */
export const stable = (body: Record<string, unknown>) => {
  const { requestId: _r, timestamp: _t, ...rest } = body;
  return rest;
};
