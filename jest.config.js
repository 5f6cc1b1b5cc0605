/**
 * One jest run for the whole repository. The global setup starts the real stores once (a MongoDB-protocol
 * server and NATS); every test file then gets its own database names and NATS prefix.
 */
/**
 * The slow fault tests (stores and brokers stopped, frozen and started again) and the browser's run of the console:
 * what they prove does not depend on the Node line, so `.ci/run` runs them in its first pass (the Docker image's
 * Node) and its second pass on the machine's Node (`SECOND_NODE_PASS=1`) leaves them out: about five minutes of
 * the two workers' time, and each timing-bound test met once per run instead of twice. `npm test` alone runs them.
 */
const ONCE_PER_CI_RUN = [
  'test/e2e/broker-outage.e2e.test.ts',
  'test/e2e/store-outage.e2e.test.ts',
  'test/e2e/small-broker.e2e.test.ts',
  'test/alerts-store-outage.test.ts',
  'shared/test/stream-startup.test.ts',
  'shared/test/stream-leader-return.test.ts',
  'test/browser/admin-console.test.ts',
];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/shared', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  },
  moduleNameMapper: {
    '^@binzip/shared$': '<rootDir>/shared/src/index.ts',
    // The layers (`@binzip/shared/core`, `/store`, `/bus`, `/runtime`, `/media`): the same source files.
    '^@binzip/shared/(core|store|bus|runtime|media)$': '<rootDir>/shared/src/$1/index.ts',
    // The response cache alone (the gateway's, which holds no store): its source file.
    '^@binzip/shared/response-cache$': '<rootDir>/shared/src/bus/response-cache.ts',
    // The producers' event contracts, from their sources.
    '^@binzip/events$': '<rootDir>/events/src/index.ts',
    // The client package as front ends use it, from its sources (no build needed).
    '^@binzip/api-client$': '<rootDir>/api-client/src/index.ts',
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  maxWorkers: 2,
  testTimeout: 30_000,
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  // Run on their own, each by its npm script: the container tests (test/containers: podman, image builds;
  // `npm run test:containers`), the scaled-out tests (their own three-node NATS cluster: about 15 processes for
  // 4-8 minutes, and the partition test's 20 s freeze of a node, 2-4 minutes; `npm run test:scaled-out`, and the
  // partition test once in CI) and the Bruno collection's run (test/collection, four minutes on a loaded machine;
  // once in CI: `npm run test:collection`).
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(process.env.CONTAINER_TESTS === '1' ? [] : ['<rootDir>/test/containers/']),
    ...(process.env.SCALED_OUT_TESTS === '1' ? [] : ['<rootDir>/test/e2e/scaled-out.e2e.test.ts', '<rootDir>/test/e2e/nats-partition.e2e.test.ts']),
    ...(process.env.COLLECTION_TESTS === '1' ? [] : ['<rootDir>/test/collection/']),
    ...(process.env.SECOND_NODE_PASS === '1' ? ONCE_PER_CI_RUN.map((file) => `<rootDir>/${file}`) : []),
  ],
};
