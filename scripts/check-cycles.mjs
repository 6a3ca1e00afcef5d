// Fails (exit 1) on any import cycle among the TypeScript files under a folder (default: src),
// printing each cycle as a path of files, and on any import that breaks the folders' ranks. Type-only
// imports count: a cycle of types still ties the files into one unit that cannot be read, moved or
// tested apart. Relative imports only (packages cannot import us back).
//
// Ranks: the top-level folders are layers, and imports point down only:
//   cli > serve > run > render > manifest > engine > state > resources > api > util
// The emulator is apart: it imports nothing of the reconciler, and only the CLI imports it (its
// entry points start it). Every source file lives in a ranked folder (or the emulator), so a new
// folder has to be given its place here before anything in it is checked in.
//
//   node scripts/check-cycles.mjs [folder]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(process.argv[2] ?? 'src');
const shown = (file) => path.relative(process.cwd(), file).split(path.sep).join('/');

function listSources(folder) {
  const files = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) files.push(...listSources(full));
    else if (/\.(m|c)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(full);
  }
  return files.sort();
}

/** `./x.js` names `./x.ts` under NodeNext resolution; a folder names its index. */
function resolveImport(from, specifier, known) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(m|c)?jsx?$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`, path.join(base, 'index.ts')];
  return candidates.find((candidate) => known.has(candidate));
}

function importGraph(files) {
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    // preProcessFile reads import, export-from, import type and import('…') without type-checking.
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = new Set();
    for (const { fileName } of importedFiles) {
      const target = resolveImport(file, fileName, known);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** Every elementary cycle, each listed once, from its first file in sorted order. */
function findCycles(graph) {
  const order = [...graph.keys()].sort();
  const rank = new Map(order.map((file, index) => [file, index]));
  const cycles = [];
  for (const start of order) {
    // Cycles through `start` that use only files after it (earlier ones were listed from there).
    const allowed = (file) => rank.get(file) > rank.get(start);
    const backToStart = filesReaching(graph, start, allowed);
    const trail = [start];
    const walk = (file) => {
      for (const next of graph.get(file) ?? []) {
        if (next === start) cycles.push([...trail, start]);
        else if (backToStart.has(next) && !trail.includes(next)) {
          trail.push(next);
          walk(next);
          trail.pop();
        }
      }
    };
    walk(start);
  }
  return cycles;
}

/** The allowed files from which `target` can be reached through allowed files. */
function filesReaching(graph, target, allowed) {
  const reverse = new Map();
  for (const [file, targets] of graph) for (const next of targets) reverse.set(next, [...(reverse.get(next) ?? []), file]);
  const found = new Set();
  const stack = [target];
  while (stack.length > 0) {
    for (const previous of reverse.get(stack.pop()) ?? []) {
      if (allowed(previous) && !found.has(previous)) {
        found.add(previous);
        stack.push(previous);
      }
    }
  }
  return found;
}

/** Top-level folders from highest to lowest: a file may import its own folder and those after it. */
const ranks = ['cli', 'serve', 'run', 'render', 'manifest', 'engine', 'state', 'resources', 'api', 'util'];
const apart = 'emulator';

function folderOf(file) {
  const parts = path.relative(root, file).split(path.sep);
  return parts.length > 1 ? parts[0] : undefined;
}

/** Why `from` may not import `to`, or undefined when it may. */
function rankViolation(from, to) {
  const source = folderOf(from);
  const target = folderOf(to);
  if (source === target) return undefined;
  if (source === apart) return `the ${apart} imports nothing of the reconciler`;
  if (target === apart) return source === 'cli' ? undefined : `only cli imports the ${apart} (its entry points start it)`;
  const above = ranks.indexOf(source);
  const below = ranks.indexOf(target);
  if (below > above) return undefined;
  return `${source} may not import ${target}: imports point down (${ranks.join(' > ')})`;
}

function findRankViolations(graph) {
  const problems = [];
  for (const [file, targets] of graph) {
    const folder = folderOf(file);
    if (folder !== apart && !ranks.includes(folder)) {
      problems.push(`${shown(file)} is not in a ranked folder (${[...ranks, apart].join(', ')}); give its folder a rank in scripts/check-cycles.mjs`);
      continue;
    }
    for (const target of targets) {
      const why = rankViolation(file, target);
      if (why) problems.push(`${shown(file)} imports ${shown(target)}: ${why}`);
    }
  }
  return problems;
}

if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
  console.error(`check-cycles: ${shown(root)} is not a folder`);
  process.exit(1);
}
const graph = importGraph(listSources(root));
const cycles = findCycles(graph);
const violations = findRankViolations(graph);
if (cycles.length > 0) {
  console.error(`${cycles.length} import cycle${cycles.length === 1 ? '' : 's'} in ${shown(root)}:`);
  for (const cycle of cycles) console.error(`  ${cycle.map(shown).join(' -> ')}`);
}
if (violations.length > 0) {
  console.error(`${violations.length} violation${violations.length === 1 ? '' : 's'} of the folder ranks in ${shown(root)}:`);
  for (const violation of violations) console.error(`  ${violation}`);
}
if (cycles.length > 0 || violations.length > 0) process.exit(1);
console.log(`No import cycles and no imports against the folder ranks in ${shown(root)}.`);
