import { Type } from '@sinclair/typebox';

export const SignInBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 254, description: "The user's e-mail address" }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});

export const SignInLinkBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 256, description: "The token of the e-mail's sign-in link" }),
});

export const PanelSessionView = Type.Object({
  user: Type.Object({
    id: Type.Integer(),
    email: Type.String(),
    role: Type.Union([Type.Literal('owner'), Type.Literal('developer'), Type.Literal('viewer')]),
  }),
  merchant: Type.Object({ id: Type.Integer(), name: Type.String() }),
  csrfToken: Type.String({ description: 'Send back in X-CSRF-Token on every request that changes something' }),
  checkoutUrl: Type.String({
    description: 'Where the hosted checkout is (CHECKOUT_URL): its page is {checkoutUrl}/main',
  }),
  developmentStore: Type.Boolean({
    description:
      'The gateway keeps its card encryption key in its own database (development secrets: no CARD_ENCRYPTION_KEYS). ' +
      'Such a store refuses to start once it has issued a live key: generating one here makes the next start fail',
  }),
  expiresAt: Type.String({
    format: 'date-time',
    description: 'When the session ends if unused; each request moves it on, up to 8 hours after sign-in',
  }),
});

export const SignedOut = Type.Object({ signedOut: Type.Literal(true) });
