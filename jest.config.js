/** Jest runs TypeScript as ESM through ts-jest (see README: npm test). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.tsx?$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  // The `tidb-reconciler` command transpiled once per run, for the tests that start it only to drive
  // something else (test/support/prebuilt-cli.ts): a start costs about half the CPU it costs through tsx.
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Three on two cores: the real-time suites (kubectl against `sim serve`, `start`) spend much of their
  // run waiting on the wall clock, and a third worker fills those waits (the whole jest run here, one
  // run each: 923 s with two workers, 525 s with three).
  maxWorkers: 3,
};
