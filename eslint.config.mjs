// Lint rules, including the dependency direction between src/ folders (dependency-rules.json; README.md,
// "Where things live"). Import cycles are dependency-cruiser's job (.dependency-cruiser.cjs, scripts/lint.sh).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import tseslint from 'typescript-eslint';

const shape = JSON.parse(readFileSync(path.join(import.meta.dirname, 'dependency-rules.json'), 'utf8'));

// A folder missing from the table would silently import anything, so a new src/ folder must be given a row.
const srcFolders = readdirSync(path.join(import.meta.dirname, 'src'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);
for (const folder of srcFolders) {
  if (!(folder in shape.folders)) throw new Error(`dependency-rules.json: src/${folder} has no row in "folders"`);
}

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
// A relative specifier that goes through a folder of that name: '../log', '../log/log-config', '../../src/log/x'.
const folderRegex = (folder) => `^\\.{1,2}\\/(?:.*\\/)?${escapeRegex(folder)}(?:\\/|$)`;
// A package or built-in and its subpaths: 'fs', 'fs/promises'.
const moduleRegex = (names) => `^(?:${names.map(escapeRegex).join('|')})(?:\\/|$)`;

const within = (dir, parent) => dir === parent || dir.startsWith(`${parent}/`);

// The scopes that get a block each: every src/ folder, and every module rule's folder that lies inside one
// (src/broker/network), cut out of its parent so that no two blocks match the same file. In flat config the last
// block that sets a rule replaces that rule's options for the file, so overlapping blocks would drop restrictions.
const moduleDirs = shape.modules.flatMap((m) => [...(m.onlyIn ?? []), ...(m.notIn ?? [])]);
const scopes = [
  ...Object.keys(shape.folders).map((folder) => ({ dir: `src/${folder}`, folder })),
  ...moduleDirs
    .filter((dir) => dir.split('/').length > 2)
    .map((dir) => ({ dir, folder: dir.split('/')[1] })),
].filter((s, i, all) => all.findIndex((o) => o.dir === s.dir) === i);

function restrictionsFor(scope) {
  const restricted = []; // { regex, message }
  const mayImportFolders = scope.folder === null ? [] : shape.folders[scope.folder];
  const allowed = new Set([scope.folder, ...mayImportFolders]);
  const others = scope.folder === null ? [] : Object.keys(shape.folders).filter((f) => !allowed.has(f));
  const mayImport = mayImportFolders.length === 0
    ? 'it imports no other src/ folder'
    : `of the other src/ folders it imports only ${mayImportFolders.map((f) => `src/${f}`).join(', ')}`;
  for (const other of others) {
    restricted.push({
      regex: folderRegex(other),
      message: `src/${scope.folder} may not import src/${other}; ${mayImport} (dependency-rules.json)`,
    });
  }
  const seen = new Set();
  for (const rule of shape.modules) {
    const applies = rule.onlyIn
      ? !rule.onlyIn.some((dir) => within(scope.dir, dir))
      : rule.notIn.some((dir) => within(scope.dir, dir));
    // A name that an earlier rule already forbids here would only report the same import twice.
    const names = applies ? rule.names.filter((n) => !seen.has(n)) : [];
    names.forEach((n) => seen.add(n));
    if (names.length > 0) restricted.push({ regex: moduleRegex(names), message: rule.message });
  }
  return restricted;
}

// no-restricted-imports sees import, import type, export ... from and import = require(); require() and import()
// calls need no-restricted-syntax, and the ZooKeeper binding and the crc32 modules are loaded with require().
function blockFor(scope) {
  const restricted = restrictionsFor(scope);
  const nested = scope.folder === null
    ? []
    : scopes.filter((s) => s.dir !== scope.dir && within(s.dir, scope.dir)).map((s) => `${s.dir}/**`);
  const re = (r) => `/${r.regex}/`;
  return {
    name: `dependency-rules/${scope.dir}`,
    files: [scope.folder === null ? `${scope.dir}/*.ts` : `${scope.dir}/**/*.ts`],
    ...(nested.length > 0 ? { ignores: nested } : {}),
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: restricted.map((r) => ({ regex: r.regex, message: r.message })) },
      ],
      'no-restricted-syntax': [
        'error',
        ...restricted.flatMap((r) => [
          { selector: `CallExpression[callee.name='require'][arguments.0.value=${re(r)}]`, message: r.message },
          { selector: `ImportExpression[source.value=${re(r)}]`, message: r.message },
          { selector: `TSImportType[source.value=${re(r)}]`, message: r.message },
        ]),
      ],
    },
  };
}

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
  // Files directly in src/ belong to no folder, but the module rules still hold for them.
  blockFor({ dir: 'src', folder: null }),
  ...scopes.map(blockFor),
);
