import { expect } from 'vitest';
import { PASSWORD, type TestGateway } from '../helpers/gateway.js';
import { textOf, type ReceivedMail } from '../notifications/smtp.js';

/** Spread into a call's options: `session` is the signed-in answer (user, merchant), not sent. */
export interface Signed {
  headers: Record<string, string>;
  session: any;
}

/** A control-panel session over HTTP: the cookie and the CSRF token every change needs. */
export async function session(gw: TestGateway, email: string, password = PASSWORD): Promise<Signed> {
  const res = await gw.call('POST', '/auth/session', { body: { email, password } });
  expect(res.status, res.text).toBe(200);
  return signedFrom(res);
}

export function signedFrom(res: { headers: Headers; body: any }): Signed {
  const cookie = res.headers.get('set-cookie')!.split(';')[0];
  return { headers: { cookie, 'x-csrf-token': res.body.csrfToken as string }, session: res.body };
}

/** The accept link of an invitation mail, and its token. */
export function invitationLink(mail: ReceivedMail): { link: string; token: string } {
  const match = /(https?:\/\/\S+\/panel\/#\/accept\?token=(inv_[\w-]+))/.exec(textOf(mail));
  expect(match, textOf(mail)).not.toBeNull();
  return { link: match![1], token: match![2] };
}
