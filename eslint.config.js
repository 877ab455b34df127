// Flat config: the recommended rules of ESLint and typescript-eslint, without type-aware
// rules so linting the whole monorepo stays a matter of seconds.
const js = require('@eslint/js');
const { defineConfig, globalIgnores } = require('eslint/config');
const tseslint = require('typescript-eslint');

// A leading underscore marks a parameter that a signature requires but the body does not use
// (express's four-argument error handler, jest reporter hooks).
const unusedVariables = ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }];

module.exports = defineConfig([
  globalIgnores(['**/node_modules/', '**/dist/', '**/coverage/']),
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    rules: { '@typescript-eslint/no-unused-vars': unusedVariables },
  },
  {
    // Test helpers read arbitrary JSON responses; production code keeps types on every boundary.
    files: ['**/test/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        module: 'writable',
        require: 'readonly',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: { 'no-unused-vars': unusedVariables },
  },
]);
