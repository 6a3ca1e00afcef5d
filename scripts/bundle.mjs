#!/usr/bin/env node
// Second step of `npm run build` (after tsc): bundles the CLI into dist/cli/, so a command reads a
// handful of files at start-up instead of resolving and compiling a few hundred modules one by one
// (commander, yaml, zod and undici alone are about 400 files).
//
// - dist/cli/main.js stays the entry point (package.json's `bin`); each command, the embedded
//   emulator and the PostgreSQL state backend are dynamic imports in the source, so code splitting
//   gives them chunks of their own that load only when a run uses them.
// - Chunks sit beside main.js in dist/cli/: code reads `../../package.json` relative to its own file.
// - `pg` stays outside the bundle, loaded from node_modules only by a PostgreSQL state (and by serve's
//   queue). pg-boss, the queue of `serve --queue`, is bundled like commander: a chunk of its own that
//   only `serve --queue` loads, whose `require('pg')` finds the same runtime dependency.
// - Unminified, with linked source maps, so a `--debug` stack trace stays readable.
//
// tsc still writes the rest of dist/ (dist/emulator/, dist/manifest/, …), which scripts and tests
// import directly; its dist/cli/ output is replaced here by the bundle.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist/cli');

await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { main: 'src/cli/main.ts' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['pg'],
  chunkNames: '[name]-[hash]',
  sourcemap: 'linked',
  sourcesContent: false,
  // commander and other CommonJS dependencies call `require` for Node's built-ins; an ES module has
  // none, so every chunk gets one made for its own URL.
  banner: {
    js: "import { createRequire as __telformRequire } from 'node:module';\nconst require = __telformRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
