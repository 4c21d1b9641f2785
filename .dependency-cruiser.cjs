// Import cycles, run by scripts/lint.sh (npm run lint). dependency-cruiser rather than an ESLint rule because
// import-x/no-cycle (and eslint-plugin-import's) skips `import type`, and a type-only cycle is still a knot in the
// shape: the folder-direction rules are in eslint.config.mjs (dependency-rules.json).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'This module can reach itself through its imports (type-only imports count). Move what both sides need into a file of its own.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Keep imports that only the type checker sees (import type, export type ... from), which the compiled
    // JavaScript drops.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
