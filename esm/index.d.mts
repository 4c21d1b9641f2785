// Types of esm/index.mjs: the same declarations as the CommonJS entry.
export { startCluster, EmbeddedCluster } from '../dist/src/embedded/index.js';
export type { ConfigValue, CreateTopicOptions, StartClusterOptions } from '../dist/src/embedded/index.js';
