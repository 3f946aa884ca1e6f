/** Jest runs TypeScript as ESM through ts-jest (see README: npm test). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.tsx?$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  // Three on two cores: the real-time suites (kubectl against `sim serve`, `start`) wait on the wall clock
  // for much of their run, and a third worker fills those waits (CI's wall time: BENCHMARKS.md is for
  // performance; the test run's own figures are in the CI log).
  maxWorkers: 3,
};
