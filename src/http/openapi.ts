import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { App } from './fastify-app.js';
import type { Config } from '../config.js';
import { ERRORS } from '../errors.js';
import { ErrorGuide, errorResponses, Problem } from './error-responses.js';
import { JSON_TYPES } from './json-body.js';
import { withNamedBodies, type OpenApiDocument } from './openapi-components.js';
import { panelCookieName } from './panel-cookie.js';
import { declarePublic, type RoutePolicy } from './route-policy.js';
import { CURRENT_API_VERSION } from './versioning.js';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from './idempotency.js';

/** Only our own origin: the reference page and its assets are served by the gateway (no CDN). */
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The OpenAPI document (@fastify/swagger) is generated from the route schemas that validate, plus the
 * error answers every route can give (error-responses.ts); the reference page at /docs is Swagger UI
 * (@fastify/swagger-ui) served from the package, under our CSP. Register before any route: the
 * document is collected from the routes as they are added.
 */
export async function openApi(app: App, config: Config): Promise<void> {
  app.addSchema(ErrorGuide);
  app.addSchema(Problem);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'SVC payment gateway API', version: CURRENT_API_VERSION, description: DESCRIPTION },
      servers: [{ url: config.publicUrl }, { url: `${config.publicUrl}/v2` }],
      components: {
        securitySchemes: {
          ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          CheckoutToken: { type: 'apiKey', in: 'header', name: 'X-Checkout-Token' },
          AccessToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          // The control panel's cookie (POST /auth/session); changes also need X-CSRF-Token.
          PanelSession: { type: 'apiKey', in: 'cookie', name: panelCookieName(config) },
        },
        parameters: {
          ApiVersion: {
            name: 'X-API-Version',
            in: 'header',
            required: false,
            schema: { type: 'string', pattern: '^2\\.[01]$', default: CURRENT_API_VERSION },
          },
          IdempotencyKey: {
            name: 'X-Idempotency-Key',
            in: 'header',
            required: false,
            description: IDEMPOTENCY_DESCRIPTION,
            schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
          },
          IdempotencyKeyDraft: {
            name: 'Idempotency-Key',
            in: 'header',
            required: false,
            description: 'The same key under the IETF draft spelling; sent with X-Idempotency-Key, both must agree.',
            schema: { type: 'string', minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH },
          },
        },
      },
    },
    // Shared schemas keep their $id as their component name: #/components/schemas/ErrorGuide.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: (documentObject) =>
      withNamedBodies(
        withSharedParameters(
          ('openapiObject' in documentObject ? documentObject.openapiObject : {}) as OpenApiDocument,
        ),
      ) as never,
    transform: ({ schema, url, route }) => {
      if (!schema || schema.hide) return { schema: { ...schema, hide: true }, url };
      const config: RoutePolicy = route.config ?? {};
      const method = String(Array.isArray(route.method) ? route.method[0] : route.method);
      const documented = {
        ...schema,
        ...(schema.body && !schema.consumes ? { consumes: JSON_TYPES } : {}),
        response: { ...(schema.response as object), ...errorResponses({ method, url, schema: schema, config }) },
        security: securityOf(config),
      };
      return { schema: documented, url };
    },
  });
  // The reference page's own routes are public: the plugin cannot declare it.
  await app.register(async (docs) => {
    docs.addHook('onRoute', declarePublic);
    await docs.register(fastifySwaggerUi, {
      routePrefix: '/docs',
      staticCSP: DOCS_CSP,
      uiHooks: {
        onRequest: (_request, reply, done) => {
          reply.header('Cache-Control', 'public, max-age=60');
          done();
        },
      },
    });
  });
  app.get('/openapi.json', { schema: { hide: true }, config: { auth: 'none' } }, async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=60').send(app.swagger()),
  );
}

/**
 * The panel's session cookie is also accepted where an API key or the bearer token is (docs/security.md),
 * but the document offers each operation the credential integrations use: PanelSession only on the
 * panel's own session routes.
 */
function securityOf(config: RoutePolicy): Record<string, string[]>[] {
  if (config.auth === 'api_key') return [{ ApiKey: [] }, ...(config.checkoutToken ? [{ CheckoutToken: [] }] : [])];
  if (config.auth === 'user') return [{ AccessToken: [] }];
  if (config.auth === 'session') return [{ PanelSession: [] }];
  return [];
}

/**
 * The request headers every operation takes, as shared parameters: X-API-Version, and the idempotency
 * key on the POSTs a merchant's credential calls (the only ones http/idempotency.ts keys: sign-in and
 * callbacks have no merchant scope).
 */
function withSharedParameters(document: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const merchantCredential = (operation.security ?? []).some((scheme) => 'ApiKey' in scheme);
      operation.parameters = [
        ...(operation.parameters ?? []),
        { $ref: '#/components/parameters/ApiVersion' },
        ...(method === 'post' && merchantCredential
          ? [
              { $ref: '#/components/parameters/IdempotencyKey' },
              { $ref: '#/components/parameters/IdempotencyKeyDraft' },
            ]
          : []),
      ];
    }
  }
  return document;
}

const IDEMPOTENCY_DESCRIPTION =
  'Makes a retry safe: the first request with a key runs, a repeat within 24 hours gets its stored answer ' +
  '(Idempotent-Replayed: true), the same key with a different request is a 422, and one still running a 409. ' +
  'Answers 5xx are not stored: a retry with the same key runs again.';

const errorTable = Object.entries(ERRORS)
  .map(([name, e]) => `| <a id="error-${name}"></a>\`${name}\` | \`${e.code}\` | ${e.status} | ${e.title} |`)
  .join('\n');

const DESCRIPTION = `Every path is also served under /v2. Errors of /payments and /customers are problem records; all others,
and every credential or rate-limit error, use the error-guide shape. Unknown body fields are ignored and
named in the X-Ignored-Fields response header.

Authentication: \`X-API-Key: svc_test_sk_…\` from your server; \`X-Checkout-Token\` from the hosted checkout;
\`Authorization: Bearer\` only for the control-panel API. The control panel at /panel signs in with
\`POST /auth/session\` and then calls the merchant API with its session cookie instead of a key, choosing
the mode per request with \`X-Panel-Mode: test|live\` and sending \`X-CSRF-Token\` on every change.

Idempotency: every POST a merchant's key (or checkout token) makes takes an idempotency key, as
\`X-Idempotency-Key\` or as \`Idempotency-Key\` (both at once must agree). Sandbox test controls: with a
test key, payment submissions and refunds pass \`X-Sandbox-Callback\` and \`X-Sandbox-Hang-Ms\` on to the
sandbox processor.

## Errors

| error | code | status | meaning |
|---|---|---|---|
${errorTable}`;
