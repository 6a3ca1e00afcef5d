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
// The door: cli and serve reach the engine, the state and the kinds through run/ (the operations),
// never directly: a command file parses, calls one operation and renders. An import from cli/ or
// serve/ into engine/, state/ or resources/ fails unless it is in `doorExceptions` below, each with
// its reason; an exception whose file no longer makes that import fails too, so the list only shrinks.
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
  for (const [file, targets] of graph)
    for (const next of targets) reverse.set(next, [...(reverse.get(next) ?? []), file]);
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
  if (target === apart)
    return source === 'cli' ? undefined : `only cli imports the ${apart} (its entry points start it)`;
  const above = ranks.indexOf(source);
  const below = ranks.indexOf(target);
  if (below > above) return undefined;
  return `${source} may not import ${target}: imports point down (${ranks.join(' > ')})`;
}

/** Folders above the door, and the folders below it they reach only through run/. */
const aboveTheDoor = ['cli', 'serve'];
const belowTheDoor = ['engine', 'state', 'resources'];

/**
 * `importer -> imported` (paths under the source folder) allowed through the door, and why. Types,
 * argument parsing and help text only: anything that does an operation's work moves into run/.
 */
const doorExceptions = new Map([
  ['cli/accounts-command.ts -> engine/plan-types.ts', 'type only: the approvals an accounts run takes'],
  ['cli/progress.ts -> engine/apply.ts', 'type only: the apply events the progress lines print'],
  ['cli/arguments/shared.ts -> engine/waves.ts', 'argument parsing: --waves STEPS is parsed by the waves module'],
  ['cli/state-ownership.ts -> resources/ownership-scope.ts', 'argument parsing and help: --scope and its presets'],
  ['cli/completion.ts -> resources/index.ts', 'help text: the kind names completed'],
  ['cli/validate.ts -> resources/index.ts', 'help text: the kind names listed in --help'],
  ['cli/explain.ts -> resources/index.ts', 'help text: explain is the catalog shown'],
  ['cli/explain.ts -> resources/explain.ts', 'help text: explain is the catalog shown'],
  ['serve/safe-plan.ts -> engine/plan-types.ts', 'type only: the plan serve judges'],
  ['serve/safe-plan.ts -> engine/safety.ts', "type only: the gates' violations serve turns into hold reasons"],
  ['serve/safe-plan.ts -> resources/index.ts', "the catalog's registry declarations (which kinds a callback names)"],
  ['serve/server.ts -> resources/index.ts', "the catalog's registry declarations (which kinds a callback names)"],
  ['serve/worker.ts -> state/ledger-store.ts', 'type only: the ledger store an apply appends its history to'],
  ['serve/worker.ts -> engine/summary.ts', 'whether a check found changes'],
]);

function underRoot(file) {
  return path.relative(root, file).split(path.sep).join('/');
}

/** Imports through the door that are not excepted, and exceptions that match no import. */
function findDoorViolations(graph) {
  const problems = [];
  const used = new Set();
  for (const [file, targets] of graph) {
    if (!aboveTheDoor.includes(folderOf(file))) continue;
    for (const target of targets) {
      if (!belowTheDoor.includes(folderOf(target))) continue;
      const key = `${underRoot(file)} -> ${underRoot(target)}`;
      if (doorExceptions.has(key)) used.add(key);
      else {
        problems.push(
          `${shown(file)} imports ${shown(target)}: ${folderOf(file)} reaches ${belowTheDoor.join(', ')} through run/ (move the work into an operation, or add an exception with its reason in scripts/check-cycles.mjs)`,
        );
      }
    }
  }
  // An exception whose file is there but no longer imports it goes (a tree without the file is not this project's).
  for (const key of doorExceptions.keys()) {
    const importer = path.join(root, key.split(' -> ')[0]);
    if (!used.has(key) && graph.has(importer))
      problems.push(`the door exception "${key}" matches no import: remove it from scripts/check-cycles.mjs`);
  }
  return problems;
}

function findRankViolations(graph) {
  const problems = [];
  for (const [file, targets] of graph) {
    const folder = folderOf(file);
    if (folder !== apart && !ranks.includes(folder)) {
      problems.push(
        `${shown(file)} is not in a ranked folder (${[...ranks, apart].join(', ')}); give its folder a rank in scripts/check-cycles.mjs`,
      );
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
const violations = [...findRankViolations(graph), ...findDoorViolations(graph)];
if (cycles.length > 0) {
  console.error(`${cycles.length} import cycle${cycles.length === 1 ? '' : 's'} in ${shown(root)}:`);
  for (const cycle of cycles) console.error(`  ${cycle.map(shown).join(' -> ')}`);
}
if (violations.length > 0) {
  console.error(
    `${violations.length} violation${violations.length === 1 ? '' : 's'} of the folder ranks in ${shown(root)}:`,
  );
  for (const violation of violations) console.error(`  ${violation}`);
}
if (cycles.length > 0 || violations.length > 0) process.exit(1);
console.log(`No import cycles and no imports against the folder ranks in ${shown(root)}.`);
