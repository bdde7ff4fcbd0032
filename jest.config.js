/** Jest runs the TypeScript sources as ES modules (NestJS 12 is ESM-only). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  roots: ['<rootDir>/test'],
  // Suite files only: each runs the spec files below its folder in one module registry (test/support/suite.ts).
  testMatch: ['**/*.suite.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
