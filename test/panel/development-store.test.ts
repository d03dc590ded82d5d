import { describe, expect, it } from 'vitest';
import { useGateway, type TestGateway } from '../helpers/gateway.js';
import { PRODUCTION_SECRETS } from '../helpers/secrets.js';
import { dereference } from '../../proof/fuzz/contract.js';

/**
 * The panel asks before a live key is made, and on a development store it must say that the next start will
 * refuse (api-keys/refuse-live-keys-on-development-store.ts): the session tells it which store it runs on.
 */
const development = useGateway();
const configured = useGateway({
  env: {
    CARD_ENCRYPTION_KEYS: PRODUCTION_SECRETS.CARD_ENCRYPTION_KEYS,
    CARD_FINGERPRINT_SECRET: PRODUCTION_SECRETS.CARD_FINGERPRINT_SECRET,
  },
});

async function sessionOf(gw: TestGateway) {
  const m = await gw.merchant();
  const signedIn = await gw.call('POST', '/auth/session', { body: { email: m.email, password: m.password } });
  expect(signedIn.status, signedIn.text).toBe(200);
  const cookie = signedIn.headers.get('set-cookie')!.split(';')[0];
  const read = await gw.call('GET', '/auth/session', { headers: { cookie } });
  expect(read.status, read.text).toBe(200);
  return { signedIn: signedIn.body, read: read.body };
}

describe('the control-panel session names the kind of store', () => {
  it('a development store (the card key in the database): developmentStore true, at sign-in and after', async () => {
    const { signedIn, read } = await sessionOf(development);
    expect(signedIn.developmentStore).toBe(true);
    expect(read.developmentStore).toBe(true);
  });

  it('card keys from the environment: developmentStore false', async () => {
    const { signedIn, read } = await sessionOf(configured);
    expect(signedIn.developmentStore).toBe(false);
    expect(read.developmentStore).toBe(false);
  });

  it('is documented in the OpenAPI document', async () => {
    const doc = (await development.call('GET', '/openapi.json')).body;
    const schema = dereference(doc, doc.paths['/auth/session'].get.responses['200'].content['application/json'].schema);
    expect(schema.required).toContain('developmentStore');
    expect(schema.properties.developmentStore).toMatchObject({
      type: 'boolean',
      description: expect.stringContaining('refuses to start once it has issued a live key'),
    });
  });
});
