/**
 * ESLint over the whole repository (`npm run lint`, run by CI): the library, the tests, the
 * benchmarks, the scripts and the sample app. ESLint's and typescript-eslint's recommended rules
 * (not type-checked), and no line over 160 characters. Prettier lays the code out (`npm run format`);
 * see CONTRIBUTING.md.
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // Built output, whatever the build wrote it under (dist/, dist-sample/, dist-bench/...), and what tests leave behind.
  globalIgnores(['dist*/', 'coverage/', 'test-results/', 'test/.generated/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // Prettier wraps code at 160; this catches what it leaves: comments, strings and template literals.
      'max-len': ['error', { code: 160, ignoreUrls: true }],
    },
  },
  {
    // The few plain JavaScript files run in Node: the configs and Jest's reporter.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
