/** Jest runs TypeScript as ESM through ts-jest (see README: npm test). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.tsx?$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }] },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60000,
  // Three on two cores: the real-time suites (kubectl against `sim serve`, `start`) spend much of their
  // run waiting on the wall clock, and a third worker fills those waits (the whole jest run here, one
  // run each: 923 s with two workers, 525 s with three).
  maxWorkers: 3,
};
