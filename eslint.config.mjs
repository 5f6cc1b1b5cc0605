import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import streams from './eslint-rules/streams.mjs';

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'tools/**',
      '.data/**',
      'coverage/**',
      '.cache/**',
      'clients/**',
      'test-artifacts/**',
      'api-client/src/schema.d.ts',
      // A rule's test input, linted by shared/test/lint-streams.test.ts with its own config (ESLint 10 would otherwise
      // pick that config, the nearest to the file, and report the fixture's intended faults).
      'shared/test/fixtures/lint/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { project: ['./tsconfig.test.json', './admin-console/tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // Async implementations of async interfaces (handlers, fakes) need no await of their own.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests read supertest's and fetch's `any` bodies and assert on them: the unsafe-any family is noise there.
    files: ['**/test/**/*.ts', '**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Issue 34: a listener (or timer callback) that throws throws into its emitter, where nothing catches it and the
    // process's fatal handler ends the gateway for one request. Every one is wrapped in `guarded` (src/edge.ts).
    files: ['services/gateway/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(on|once|addListener|prependListener|prependOnceListener)$/] > :matches(ArrowFunctionExpression, FunctionExpression)',
          message: 'wrap an emitter listener in guarded(onError, listener) (src/edge.ts): a throw inside must never reach the emitter',
        },
        {
          selector: 'CallExpression[callee.name=/^(setTimeout|setInterval|setImmediate)$/] > :matches(ArrowFunctionExpression, FunctionExpression)',
          message: 'wrap a timer callback in guarded(onError, callback) (src/edge.ts): a throw inside is uncaught and ends the process',
        },
      ],
    },
  },
  {
    // Issue 34: every stream that can error has a listener, in every process (eslint-rules/streams.mjs;
    // shared/test/lint-streams.test.ts checks that it fires).
    files: ['services/*/src/**/*.ts', 'shared/src/**/*.ts'],
    plugins: { binzip: streams },
    rules: { 'binzip/no-bare-pipe': 'error' },
  },
  // The shared library's layers import only downward (core <- store <- bus <- runtime <- media), and the gateway,
  // which holds no store, imports only the core: docs/conventions.md, "shared/".
  ...sharedLayerRules(),
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { module: 'writable', require: 'readonly', __dirname: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);

function sharedLayerRules() {
  const layers = ['core', 'store', 'bus', 'runtime', 'media'];
  const storeClients = ['mongoose', 'mongodb'];
  const brokerClients = ['nats', '@nats-io/*'];
  const above = (layer) => layers.slice(layers.indexOf(layer) + 1);
  const libraries = { core: [...storeClients, ...brokerClients], store: brokerClients, bus: [], runtime: [], media: [] };
  const rule = (groups, message) => ['error', { patterns: groups.map((group) => ({ group, message })) }];
  const configs = layers.map((layer) => ({
    files: [`shared/src/${layer}/**/*.ts`],
    rules: {
      'no-restricted-imports': rule(
        [above(layer).flatMap((higher) => [`../${higher}`, `../${higher}/*`]), libraries[layer]].filter((group) => group.length > 0),
        `the ${layer} layer imports only the layers below it (core <- store <- bus <- runtime <- media) and not ${libraries[layer].join(', ') || 'their clients'}`,
      ),
    },
  }));
  // The one exception, the response cache (`@binzip/shared/response-cache`): the gateway keeps the services' offered
  // answers and follows their announcements on NATS through it, never through a broker client of its own.
  const gatewayMessage = 'the gateway holds no store and no broker client: it imports only @binzip/shared/core and @binzip/shared/response-cache';
  configs.push({
    files: ['services/gateway/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['@binzip/shared', ...layers.slice(1).map((layer) => `@binzip/shared/${layer}`)].map((name) => ({ name, message: gatewayMessage })),
          patterns: [{ group: [...storeClients, ...brokerClients, '@binzip/shared/dist/*'], message: gatewayMessage }],
        },
      ],
    },
  });
  return configs;
}
