const base = require('./jest.base');
module.exports = { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] };
