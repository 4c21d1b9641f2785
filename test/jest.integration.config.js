const base = require('./jest.base');
// Integration tests start real ZooKeeper ensembles and broker processes: one file at a time keeps two cores
// from being oversubscribed and keeps timings honest.
module.exports = {
  ...base,
  displayName: 'integration',
  testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
  maxWorkers: 1,
  testTimeout: 120000,
};
