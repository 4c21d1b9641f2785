const base = require('./jest.base');
// Integration tests start real ZooKeeper ensembles and broker processes. They spend most of their time waiting
// on elections, session timeouts and replication, not computing, so two files at a time (one per core) keep the
// suite inside CI's 30 minutes on 2 cores. Nothing in them may depend on having the machine to itself: ports
// and directories are random, deadlines are generous, and speed is measured by the benchmarks, not here.
// INTEGRATION_WORKERS=1 runs them one at a time.
module.exports = {
  ...base,
  displayName: 'integration',
  testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
  maxWorkers: Number(process.env.INTEGRATION_WORKERS || 2),
  testTimeout: 120000,
};
