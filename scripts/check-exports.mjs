// Fails on an export of src/ that nothing imports (src/, test/, scripts/, the bundle's entry points),
// naming it: dead code is found when it is made, not grown. Matching is by name, so an export counts
// as used when any file imports that name (coarse, never a false alarm on a used export). Exports
// that were already unused when the check came in are listed in scripts/unused-exports.json, to be
// removed over time; a name listed there that is now imported, or gone, must leave the list too.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const baselineFile = path.join(root, 'scripts/unused-exports.json');

function files(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'fixtures' ? [] : files(full);
    return /\.(m?[jt]s)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const declared =
  /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;
const listed = /^export\s+(?:type\s+)?\{([^}]*)\}(?!\s*from)/gm;
const imported =
  /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from|const\s*\{([^}]*)\}\s*=\s*await\s+import\(|\(await\s+import\([^)]*\)\)\.([A-Za-z_$][\w$]*)|import\([^)]*\)\.([A-Za-z_$][\w$]*)/g;

const exports = [];
for (const file of files(path.join(root, 'src'))) {
  const text = readFileSync(file, 'utf8');
  const relative = path.relative(root, file);
  for (const match of text.matchAll(declared)) exports.push(`${relative}#${match[1]}`);
  for (const match of text.matchAll(listed)) {
    for (const item of match[1].split(',')) {
      const name = item
        .trim()
        .split(/\s+as\s+/)
        .pop()
        ?.replace(/^type\s+/, '');
      if (name) exports.push(`${relative}#${name}`);
    }
  }
}

const used = new Set();
for (const file of [
  ...files(path.join(root, 'src')),
  ...files(path.join(root, 'test')),
  ...files(path.join(root, 'scripts')),
]) {
  for (const match of readFileSync(file, 'utf8').matchAll(imported)) {
    for (const item of (match[1] ?? match[2] ?? match[3] ?? match[4]).split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+|\s*:\s*/)[0];
      if (name) used.add(name);
    }
  }
}

const baseline = new Set(JSON.parse(readFileSync(baselineFile, 'utf8')));
const unused = exports.filter((entry) => !used.has(entry.slice(entry.indexOf('#') + 1)));
if (process.argv.includes('--write-baseline')) {
  process.stdout.write(`${JSON.stringify(unused.sort(), null, 2)}\n`);
  process.exit(0);
}
const fresh = unused.filter((entry) => !baseline.has(entry));
const stale = [...baseline].filter((entry) => !unused.includes(entry));
for (const entry of fresh)
  process.stderr.write(`${entry.replace('#', ': export ')} is imported nowhere: remove it, or stop exporting it\n`);
for (const entry of stale)
  process.stderr.write(
    `${entry} is listed in scripts/unused-exports.json but is used or gone now: remove it from the list\n`,
  );
if (fresh.length > 0 || stale.length > 0) process.exit(1);
process.stdout.write(
  `No new unused exports in src (${baseline.size} older ones listed in scripts/unused-exports.json).\n`,
);
