/** One jest run for the whole monorepo: unit tests and integration tests against real servers. */
module.exports = {
  testEnvironment: '<rootDir>/test/environment.js',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/apps', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // SWC strips the types file by file (tsconfig's isolatedModules holds every file to that), a
  // tenth of ts-jest's CPU on a cold cache; the types are checked by `npm run typecheck`.
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { target: 'es2022', parser: { syntax: 'typescript' }, transform: { useDefineForClassFields: true } },
        module: { type: 'commonjs' },
      },
    ],
  },
  moduleNameMapper: {
    '^@wallet/kit/testing$': '<rootDir>/packages/kit/src/testing/index.ts',
    // The kit takes the contracts' wire modules one by one (test/import-boundaries.test.ts).
    '^@wallet/contracts/(.+)$': '<rootDir>/packages/contracts/src/$1',
    // Resolve even before `npm install` has linked the new workspaces into node_modules.
    '^@wallet/sdk$': '<rootDir>/packages/sdk/src/index.ts',
    '^@wallet/money-commands$': '<rootDir>/packages/money-commands/src/index.ts',
  },
  globalSetup: '<rootDir>/test/global-setup.ts',
  globalTeardown: '<rootDir>/test/global-teardown.ts',
  testTimeout: 120000,
  // Three on CI's two cores: a worker waits on its servers (PostgreSQL commits, the broker, a
  // service's answer) for part of each test, and a third keeps the cores busy meanwhile: 496 s
  // against 552 s for the whole run (docs/testing.md).
  maxWorkers: 3,
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  testSequencer: '<rootDir>/test/sequencer.js',
};
