/**
 * The layering of docs/architecture.md, checked by `npm run arch` (part of `npm test`).
 * Type-only imports count (tsPreCompilationDeps), so a cycle through types fails too.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycles, type-only ones included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-imports-nothing-of-ours',
      severity: 'error',
      comment:
        'src/lib/ holds pure helpers: it imports only libraries, itself and the error vocabulary (src/errors.ts, which imports nothing).',
      from: { path: '^src/lib/' },
      to: { path: '^(src|sandbox)/', pathNot: '^src/(lib/|errors\\.ts$)' },
    },
    {
      name: 'storage-imports-only-lib',
      severity: 'error',
      comment:
        'src/storage/ knows the database, not the domain: it imports only src/lib/ (and the Config type for secrets).',
      from: { path: '^src/storage/' },
      to: { path: '^(src|sandbox)/', pathNot: ['^src/(lib|storage)/', '^src/config\\.ts$'] },
    },
    {
      name: 'modules-meet-through-index',
      severity: 'error',
      comment: "A module reaches another module only through that module's index.ts.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'http-holds-no-queries',
      severity: 'error',
      comment: 'src/http/ adapts HTTP; queries live in module repositories.',
      from: { path: '^src/http/' },
      to: { path: ['^src/modules/[^/]+/repository\\.ts$', 'node_modules/kysely/'] },
    },
    {
      name: 'http-is-plumbing',
      severity: 'error',
      comment:
        "src/http/ is plumbing below the modules (modules' routes import it): it imports no module and not context.ts. What it needs of a module it declares as a small interface (CredentialDeps, ClaimStore, Deprecation) that app.ts fills from the module, so no arrow runs back up.",
      from: { path: '^src/http/' },
      to: { path: ['^src/modules/', '^src/context\\.ts$'] },
    },
    {
      name: 'modules-do-not-import-the-wiring',
      severity: 'error',
      comment:
        'A module declares the services it needs in its own context.ts, built from lower layers; context.ts composes those above the modules and app.ts builds it, so a module importing them (or server.ts) would depend on every other module.',
      from: { path: '^src/modules/' },
      to: { path: '^src/(context|app|server)\\.ts$' },
    },
    {
      name: 'context-meets-modules-through-index',
      severity: 'error',
      comment:
        "context.ts composes the modules' context types, and reaches a module only through that module's index.ts.",
      from: { path: '^src/context\\.ts$' },
      to: { path: '^src/modules/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'only-entry-points-import-the-app',
      severity: 'error',
      comment:
        'app.ts and server.ts are wiring: only main.ts, cluster.ts, cli.ts, openapi-document.ts (the document without a server), tests and bench import them.',
      from: { pathNot: ['^src/(main|cluster|cli|server|openapi-document)\\.ts$', '^test/', '^bench/'] },
      to: { path: '^src/(app|server)\\.ts$' },
    },
    {
      name: 'sandbox-is-separate',
      severity: 'error',
      comment: 'The sandbox stands for outside networks; it imports nothing from src/.',
      from: { path: '^sandbox/' },
      to: { path: '^src/' },
    },
    {
      name: 'web-imports-nothing-of-the-server',
      severity: 'error',
      comment:
        'The front ends run in browsers and know the gateway only through its API: web/ imports nothing from src/, sandbox/, test/ or bench/.',
      from: { path: '^web/' },
      to: { path: '^(src|sandbox|test|bench)/' },
    },
    {
      name: 'front-ends-meet-only-in-shared',
      severity: 'error',
      comment:
        'The checkout and the panel are separate builds: each imports itself and web/shared/, never the other (nor embed).',
      from: { path: '^web/(checkout|panel)/' },
      to: { path: '^web/', pathNot: ['^web/$1/', '^web/shared/'] },
    },
    {
      name: 'embed-imports-only-shared',
      severity: 'error',
      comment: "embed.js runs on merchants' pages: of ours it imports only itself and web/shared/.",
      from: { path: '^web/embed/' },
      to: { path: '^web/', pathNot: ['^web/embed/', '^web/shared/'] },
    },
    {
      name: 'shared-web-imports-no-front-end',
      severity: 'error',
      comment: 'web/shared/ is what the front ends have in common: it imports none of them.',
      from: { path: '^web/shared/' },
      to: { path: '^web/', pathNot: '^web/shared/' },
    },
    {
      name: 'simulators-are-separate',
      severity: 'error',
      comment:
        'The processor simulators stand for Stripe and Adyen, held to their own OpenAPI documents; they import nothing from src/.',
      from: { path: '^simulators/' },
      to: { path: '^src/' },
    },
    {
      name: 'sdk-knows-the-gateway-only-through-its-api',
      severity: 'error',
      comment:
        "The SDK (sdk/src/) is a package of its own, installed in merchants' servers: it knows the gateway only through the types generated from /openapi.json, and imports nothing from src/, sandbox/, simulators/, test/, bench/, web/ or scripts/.",
      from: { path: '^sdk/src/' },
      to: { path: '^(src|sandbox|simulators|test|bench|web|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The front ends' built bundles: vite's output, not code of ours to check.
    exclude: { path: '^web/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.test.json' },
  },
};
