// @ts-check
import js from '@eslint/js';
import regexp from 'eslint-plugin-regexp';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import layers from './scripts/eslint/layers.js';
import { serviceTestBlocks } from './scripts/eslint/service-tests.js';

/** Modules that only adapters, ports and main.ts may use: domain/ and app/ stay pure. */
const infrastructureModules = [
  'mongoose',
  'kafkajs',
  '@grpc/grpc-js',
  '@grpc/*',
  'fastify',
  '@fastify/*',
  // Every subpath of the platform package (it has no root export) but the pure ones, no I/O:
  // `money`, ISO 4217 exponents and minor-unit arithmetic (packages/platform/src/money), and
  // `kernel`, error kinds, the clock port and the compare-and-set retry (packages/platform/src/kernel).
  '@marquee/platform/*',
  '!@marquee/platform/money',
  '!@marquee/platform/kernel',
];

/** The restricted-import pattern that keeps them out of domain/ and app/. */
const infrastructurePattern = {
  group: infrastructureModules,
  message:
    'domain/ and app/ stay free of infrastructure: declare a port here and implement it in adapters/.',
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/coverage/**',
      '**/.turbo/**',
      '**/src/gen/**',
      'deploy/helm/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'smart'],
      'no-console': 'off',
    },
  },
  {
    // Regular expressions that backtrack super-linearly are a denial of service waiting for a long
    // input (ReDoS): refused everywhere. The plugin analyses each pattern (scslre). Its sibling
    // rule no-super-linear-move flags every unanchored `/-+/g` of a replace; the inputs those run
    // on are bounded, and capping input lengths is the rule for them.
    plugins: { regexp },
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
    },
  },
  {
    // Hand-written source stays in files a reader can hold (600 lines) and functions that fit
    // on a screen (80 lines), blank lines and comments not counted. Generated code is ignored
    // above; tests are lists of cases and are not held to it.
    files: ['services/*/src/**/*.ts', 'packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 600, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // Inside a service, layers and slices point one way (scripts/eslint/layers.js says how).
    files: ['services/*/src/**/*.ts'],
    plugins: { layers },
    rules: { 'layers/layer-direction': 'error' },
  },
  // A service's tests start no other service: no import of another service's package or folder
  // (one exception, 3p-connector's partner-reference; scripts/eslint/service-tests.js says why).
  // Cases that need several services live in test/integration, the cross-service tier.
  ...serviceTestBlocks(),
  {
    // The platform's pure subpaths stay importable by domain/ and app/: no Node built-in, no
    // infrastructure, nothing of the platform outside their own folder.
    files: ['packages/platform/src/kernel/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...infrastructureModules, 'node:*', '../*'],
              message:
                'the kernel is pure: domain/ and app/ import it (no I/O, no infrastructure).',
            },
          ],
        },
      ],
    },
  },
  {
    // domain/ and app/ import nothing from the infrastructure or the platform package
    // (docs/decisions.md, Layers).
    // A service's slices (cart's top-picks/) have their own domain/ and app/ under the same rule.
    files: [
      'services/*/src/domain/**/*.ts',
      'services/*/src/app/**/*.ts',
      'services/*/src/*/domain/**/*.ts',
      'services/*/src/*/app/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [infrastructurePattern],
        },
      ],
    },
  },
  {
    // catalog-indexer's and 3p-connector's domain and app hold their own records: the protobuf
    // messages are mapped in their adapters/proto/, which their ports and other adapters use.
    // Listed with the infrastructure: this block's options replace the block above's for these
    // files.
    files: [
      'services/catalog-indexer/src/domain/**/*.ts',
      'services/catalog-indexer/src/app/**/*.ts',
      'services/3p-connector/src/domain/**/*.ts',
      'services/3p-connector/src/app/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            infrastructurePattern,
            {
              group: ['@marquee/proto', '@marquee/proto/*'],
              message:
                'this domain has its own records: map the messages in ports/kafka or ports/grpc.',
            },
          ],
        },
      ],
    },
  },
  {
    // partner-reference's domain and app hold their own records: the 3P API's snake_case shapes
    // (`@marquee/partner-api`) are mapped in ports/http and adapters/. Only its vocabularies pass:
    // the error ids a refusal names and the OAuth scopes a token carries.
    files: [
      'services/partner-reference/src/domain/**/*.ts',
      'services/partner-reference/src/app/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@marquee/partner-api',
              allowImportNames: ['PartnerErrorId', 'allPartnerScopes', 'PartnerScopeValue'],
              message:
                'this domain has its own records: map the 3P wire shapes in ports/http or adapters/.',
            },
          ],
          patterns: [infrastructurePattern],
        },
      ],
    },
  },
);
