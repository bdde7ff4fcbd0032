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
      // Prettier wraps code at 160; this catches what it leaves: comments, strings and template literals
      // (scripts/wrap-long-lines.mjs wraps most of them).
      'max-len': ['error', { code: 160, ignoreUrls: true }],
      // tsc's own conventions (noUnusedLocals, noUnusedParameters): a name that starts with _ is unused on
      // purpose, and so is a property taken out of an object by destructuring (`const { _id, ...rest } = doc`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // Off: `Function` is the type that TypeScript's decorators and the Reflect metadata API give a class or a
      // handler (ClassDecorator's target), and that is how src/ uses it: a key of the metadata storage, a target
      // to read metadata from or copy it onto, a class whose name is read. Nothing is called through it; a
      // narrower type would need a cast at each decorator and at each Reflect call.
      '@typescript-eslint/no-unsafe-function-type': 'off',
      // Off: Prettier prints a member chain as `t\n.http()\n[method](path)`, which this rule reads as two
      // statements though the code is one expression (eslint-config-prettier turns it off for this reason).
      // Prettier makes every statement's end visible, which is what the rule is for.
      'no-unexpected-multiline': 'off',
    },
  },
  {
    // Node 20's V8 (11.3) gives each object that an object literal starts with a spread and then adds
    // properties to (`{ ...write, call }`, `{ ...(a && { a }), b }`) a hidden class of its own, in a
    // call to the runtime: about a microsecond per object, and every function that later reads such
    // objects sees a new shape each time (measured in BENCHMARKS.md, "A spread first"). Node 22 and
    // later do not. In the code a request runs, put the literal's own properties first where the
    // spread cannot hold them, or merge with `Object.assign({}, base, { more })`. Start-up code, the
    // back office's browser app and the OpenAPI document are built once, and keep the shorter form.
    files: ['src/**/*.ts'],
    ignores: [
      'src/back-office/**',
      'src/definitions/**',
      'src/embedded/**',
      'src/explorer/**',
      'src/health/**',
      'src/module/**',
      'src/routes/**',
      'src/swagger/**',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression[properties.length>1] > SpreadElement:first-child',
          message:
            'An object literal that starts with a spread and goes on costs a hidden class per object on Node 20: ' +
            'put its own properties first, or use Object.assign({}, base, { more }) (see eslint.config.js).',
        },
      ],
    },
  },
  {
    // Off in the tests: they walk OpenAPI documents and response bodies as JSON (`document.paths[path][method]
    // .parameters`), and their assertions check the shapes a type would. In src/, bench/ and scripts/ an `any`
    // carries a disable comment that says why.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The few plain JavaScript files run in Node: the configs, Jest's reporter and scripts/wrap-long-lines.mjs.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
