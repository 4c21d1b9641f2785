// Lint rules, including the dependency direction between src/ folders (see README.md, "Where things live").
import tseslint from 'typescript-eslint';

const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: patterns.map((group) => ({ group, message })) }],
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'test/*.js'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  { files: ['test/**/*.ts', 'bench/**/*.ts'], rules: { 'no-console': 'off' } },
  // Only src/zk talks to ZooKeeper's binding.
  { files: ['src/**/*.ts'], ignores: ['src/zk/**'], rules: restrict([['zookeeper']], 'only src/zk uses the ZooKeeper binding') },
  { files: ['src/common/**/*.ts'], rules: restrict([['**/broker/**', '**/log/**', '**/zk/**', '**/protocol/**', '**/controller/**', '**/client/**', '**/records/**', '**/rebalance/**', '**/tools/**']], 'src/common imports nothing else from src/') },
  { files: ['src/records/**/*.ts', 'src/log/**/*.ts'], rules: restrict([['**/broker/**', '**/zk/**', '**/protocol/**', '**/controller/**', '**/client/**', '**/rebalance/**', '**/tools/**']], 'records and log know nothing of the broker, protocol or ZooKeeper') },
  { files: ['src/protocol/**/*.ts'], rules: restrict([['**/broker/**', '**/zk/**', '**/log/**', '**/controller/**', '**/client/**', '**/rebalance/**', '**/tools/**', 'node:net', 'net', 'node:fs', 'fs']], 'protocol is bytes only: no I/O, no broker') },
  { files: ['src/zk/**/*.ts'], rules: restrict([['**/broker/**', '**/log/**', '**/protocol/**', '**/controller/**', '**/client/**', '**/rebalance/**', '**/records/**', '**/tools/**']], 'src/zk stands on src/common only') },
  { files: ['src/controller/**/*.ts', 'src/rebalance/**/*.ts', 'src/log/**/*.ts', 'src/zk/**/*.ts', 'src/records/**/*.ts'], rules: restrict([['node:net', 'net']], 'only the network layer and the client open sockets') },
);
