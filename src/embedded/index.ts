// The package's entry point ("exports" in package.json): what a test needs to run a kafka-ts cluster.
export { startCluster } from './start-cluster';
export { EmbeddedCluster } from './embedded-cluster';
export type { ConfigValue, CreateTopicOptions, StartClusterOptions } from './embedded-cluster';
