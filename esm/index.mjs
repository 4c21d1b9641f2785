// The ES module face of the package: the compiled CommonJS entry, re-exported by name, so that `import` and
// `require` get the same module instance (one set of clusters, one watchdog).
import embedded from '../dist/src/embedded/index.js';

export const { startCluster, EmbeddedCluster } = embedded;
