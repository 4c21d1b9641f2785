// Shared jest settings: ts-jest in transpile-only mode (tsc --noEmit checks types separately, once).
module.exports = {
  rootDir: '..',
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
};
