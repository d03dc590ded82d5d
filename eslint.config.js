// ESLint over every TypeScript file of the project, with type information (typescript-eslint).
// Formatting is Prettier's job (.prettierrc.json); no rule here is about layout.
// Why these rules and these exceptions: docs/decisions.md, "Lint and format".
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const unsafeAny = [
  '@typescript-eslint/no-explicit-any',
  '@typescript-eslint/no-unsafe-argument',
  '@typescript-eslint/no-unsafe-assignment',
  '@typescript-eslint/no-unsafe-call',
  '@typescript-eslint/no-unsafe-member-access',
  '@typescript-eslint/no-unsafe-return',
];
const off = (rules) => Object.fromEntries(rules.map((rule) => [rule, 'off']));

export default defineConfig(
  // test/fixtures holds built front-end files standing in for real builds.
  {
    ignores: [
      'node_modules/',
      'dist/',
      'web/dist/',
      'data/',
      '.tmp/',
      'coverage/',
      'test/fixtures/',
      // openapi-typescript's output (npm run sdk:generate), and the SDK's build.
      'sdk/src/generated/',
      'sdk/dist/',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // tsconfig.test.json covers src/, sandbox/, bench/, test/ and vitest.config.ts.
        project: './tsconfig.test.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A switch over a union names every member, or says with a default that the rest is one case:
      // a new state or outcome is then a compile-time to-do list wherever nobody decided that.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // Fastify handlers and plugins are async so that a returned value is the reply, awaited or not.
      '@typescript-eslint/require-await': 'off',
      // `declare module 'fastify' { interface FastifyContextConfig extends RouteAuthConfig {} }`.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // `const { cvv: _cvv, ...rest } = body` drops a member on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The front ends run in browsers: their own tsconfig (DOM, bundler resolution).
    files: ['web/**/*.ts'],
    languageOptions: { parserOptions: { project: './web/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // Kysely's own advice: a migration sees the schema of its day, not today's, so it takes Kysely<any>.
    files: ['src/storage/migrations/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests and the proof suites read JSON answers (and JSON Schemas) member by member; typing each
    // body would add nothing.
    files: ['test/**/*.ts', 'sdk/test/**/*.ts', 'proof/**/*.ts'],
    rules: off(unsafeAny),
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'readonly', require: 'readonly' } },
  },
);
