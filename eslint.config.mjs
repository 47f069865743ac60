import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.data/',
      '.venv/',
      'coverage/',
      'bench/results/',
      'generated/',
      'tools/openapi-client/node_modules/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/dist/**'], message: 'Import sources, not build output.' }],
          // src/joi.ts is the project's Joi: its string lengths count code points, as the published schemas do.
          paths: [{ name: 'joi', allowTypeImports: true, message: 'Import Joi from src/joi.ts (lengths count code points).' }],
        },
      ],
    },
  },
  {
    // One HTTP contract (docs/conventions.md): a route's handler types come from its Joi schemas
    // through the generated document; its type arguments name the operation and auth level only.
    files: ['src/http/routes/**/*.ts', 'src/modules/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='defineRoute'] > TSTypeParameterInstantiation > :not(TSLiteralType)",
          message: "defineRoute<'operationId', 'auth'> takes literals only: the handler's types come from the route's schemas.",
        },
      ],
    },
  },
  {
    files: ['src/joi.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
  {
    // Workflow code must stay deterministic: no I/O modules, no clocks or randomness of their own.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['fs', 'node:fs', 'http', 'https', 'net', 'crypto', 'node:crypto', 'typeorm', 'pg'].map((name) => ({
            name,
            message: 'Workflows are deterministic: do I/O in activities.',
          })),
          patterns: [
            {
              // src/domain holds pure modules (no I/O) shared by workflows and services.
              group: ['../src/*', '!../src/domain', '../activities/**'],
              allowTypeImports: true,
              message: 'Workflows import only types from activities and services.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
