#!/usr/bin/env node
// Summarises a V8 CPU profile (`node --cpu-prof`, or a bench run with BENCH_PROFILE_DIR): where the
// process's time went by group (waiting on the network or disk, garbage collection, compiling and
// loading modules, each dependency, telform's own code by folder), then the functions with the most
// self time.
//
//   node test/bench/profile-summary.mjs FILE.cpuprofile [TOP]
import { readFileSync } from 'node:fs';
import { originOf } from '../../scripts/bundle-origin.mjs';

const [file, top = '20'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node test/bench/profile-summary.mjs FILE.cpuprofile [TOP]\n');
  process.exit(1);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMs = new Map();
profile.samples.forEach((id, index) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000));

const parents = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

const special = {
  '(idle)': 'idle (network, disk)',
  '(garbage collector)': 'garbage collection',
  '(program)': 'V8 (compiling, runtime)',
};
const isLoader = ({ functionName, url }) =>
  url.startsWith('node:internal/modules') ||
  /^(wrapSafe|compileSourceTextModule|compileForInternalLoader)$/.test(functionName);

/**
 * The group of a code location, or undefined for node's own internals (attributed to their caller).
 * The CLI is bundled (dist/cli/*.js): its source maps say which source file a position came from.
 */
function codeGroup({ url, lineNumber, columnNumber }) {
  const source = originOf(url, lineNumber, columnNumber) ?? url;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
  if (dependency) return dependency[1];
  const own = /\/(?:src|dist)\/(?:([^/]+)\/)?[^/]*$/.exec(source);
  if (own) return `telform ${own[1] ?? ''}/`;
  return undefined;
}

/** A module's body: a chunk's top level, or the function esbuild wraps a module in (named after its file, or init_*). */
const isModuleBody = ({ functionName, lineNumber }) =>
  (functionName === '' && lineNumber === 0) || /^(node_modules\/|src\/|init_|__require)/.test(functionName);

/**
 * A sample's group: walking from the sampled function to its callers, the first loader frame or
 * module body makes it module loading; the first function of a dependency or of telform names it;
 * node internals called from neither (timers, sockets) stay node's.
 */
function groupOf(id) {
  const leaf = nodes.get(id).callFrame;
  if (special[leaf.functionName]) return special[leaf.functionName];
  for (let current = id; current !== undefined; current = parents.get(current)) {
    const frame = nodes.get(current).callFrame;
    if (isLoader(frame)) return 'module loading';
    const group = codeGroup(frame);
    if (group === undefined) continue;
    if (isModuleBody(frame)) return 'module loading';
    return group;
  }
  return 'node (sockets, timers, streams)';
}

const groups = new Map();
const functions = new Map();
let total = 0;
for (const [id, ms] of selfMs) {
  const frame = nodes.get(id).callFrame;
  total += ms;
  const group = groupOf(id);
  groups.set(group, (groups.get(group) ?? 0) + ms);
  const source = originOf(frame.url, frame.lineNumber, frame.columnNumber);
  const where = source
    ? source.replace(/^.*\/(node_modules\/|src\/)/, '$1')
    : `${frame.url.replace(/^.*\/(node_modules\/|dist\/)/, '$1')}:${frame.lineNumber + 1}`;
  const name = `${frame.functionName || '(anonymous)'}  ${where}`;
  functions.set(name, (functions.get(name) ?? 0) + ms);
}
const line = (ms, label) =>
  `${ms.toFixed(0).padStart(7)} ms  ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${label}\n`;
process.stdout.write(`${file}: ${total.toFixed(0)} ms sampled\n\nby group (self time)\n`);
for (const [group, ms] of [...groups].sort((a, b) => b[1] - a[1])) if (ms >= 1) process.stdout.write(line(ms, group));
process.stdout.write(`\ntop ${top} functions (self time, idle and GC left out)\n`);
for (const [name, ms] of [...functions]
  .filter(([name]) => !name.startsWith('(idle)') && !name.startsWith('(garbage'))
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(top))) {
  process.stdout.write(line(ms, name));
}
