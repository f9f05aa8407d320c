// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Modules that only adapters, ports and main.ts may use: domain/ and app/ stay pure. */
const infrastructureModules = [
  'mongoose',
  'kafkajs',
  '@grpc/grpc-js',
  '@grpc/*',
  'fastify',
  '@fastify/*',
  '@marquee/platform',
  '@marquee/platform/*',
];

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
    // STYLE.md: domain/ and app/ import nothing from the infrastructure or the platform package.
    files: ['services/*/src/domain/**/*.ts', 'services/*/src/app/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: infrastructureModules,
              message:
                'domain/ and app/ stay free of infrastructure: declare a port here and implement it in adapters/.',
            },
          ],
        },
      ],
    },
  },
);
