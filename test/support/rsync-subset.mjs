#!/usr/bin/env node
// The part of rsync that gitlab-ci-local (the GitLab template's test) runs, for machines that have
// only Node and npm: no npm package ships an rsync binary, and the test must pass on a fresh clone.
// It copies for real, with the semantics of rsync for the options gitlab-ci-local passes:
//   -a (recursive, keep modes and times), -R (keep each source's path under the destination),
//   --delete, --delete-excluded, --exclude PATTERN, --exclude-from FILE.
// Any other option is refused (exit 1), so a future gitlab-ci-local that needs more fails loudly.
import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
} from 'node:fs';
import { join, posix } from 'node:path';

const usage = (message) => {
  process.stderr.write(`rsync (telform test subset): ${message}\n`);
  process.exit(1);
};

const options = { relative: false, archive: false, delete: false, deleteExcluded: false, excludes: [] };
const operands = [];
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
  const arg = args[index];
  if (arg === '--delete') options.delete = true;
  else if (arg === '--delete-excluded') options.deleteExcluded = options.delete = true;
  else if (arg === '--exclude') options.excludes.push(args[++index] ?? usage('--exclude needs a pattern'));
  else if (arg.startsWith('--exclude=')) options.excludes.push(arg.slice('--exclude='.length));
  else if (arg.startsWith('--exclude-from=') || arg === '--exclude-from') {
    const file = arg === '--exclude-from' ? args[++index] : arg.slice('--exclude-from='.length);
    for (const line of readFileSync(file ?? usage('--exclude-from needs a file'), 'utf8').split('\n')) {
      if (line.trim() && !line.startsWith('#') && !line.startsWith(';')) options.excludes.push(line);
    }
  } else if (/^-[aR]+$/.test(arg)) {
    if (arg.includes('a')) options.archive = true;
    if (arg.includes('R')) options.relative = true;
  } else if (arg.startsWith('-')) usage(`option ${arg} is not supported`);
  else operands.push(arg);
}
if (!options.archive) usage('only archive mode (-a) is supported');
if (operands.length < 2) usage('a source and a destination are needed');
const destination = operands.pop();
const rules = options.excludes.map(compileRule);

/** One exclude rule: anchored or not, directories only or not, matched against a path from the transfer root. */
function compileRule(pattern) {
  const directoryOnly = pattern.endsWith('/');
  let body = directoryOnly ? pattern.slice(0, -1) : pattern;
  const anchored = body.startsWith('/');
  if (anchored) body = body.slice(1);
  const wholePath = anchored || body.includes('/') || body.includes('**');
  let source = '';
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === '*' && body[index + 1] === '*') {
      source += '.*';
      index++;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  // A "dir/**" pattern also matches what is under "dir" however deep: ".*" already does.
  const regex = new RegExp(wholePath ? (anchored ? `^${source}$` : `(^|/)${source}$`) : `(^|/)${source}$`);
  return { directoryOnly, test: (path, isDirectory) => (!directoryOnly || isDirectory) && regex.test(path) };
}

const excluded = (path, isDirectory) => rules.some((rule) => rule.test(path, isDirectory));

function copyEntry(from, to, path) {
  const stat = lstatSync(from);
  if (excluded(path, stat.isDirectory())) return;
  if (stat.isSymbolicLink()) {
    rmSync(to, { recursive: true, force: true });
    symlinkSync(readlinkSync(from), to);
    return;
  }
  if (stat.isDirectory()) {
    if (existsSync(to) && !lstatSync(to).isDirectory()) rmSync(to, { force: true });
    mkdirSync(to, { recursive: true });
    const names = readdirSync(from);
    for (const name of names) copyEntry(join(from, name), join(to, name), path ? `${path}/${name}` : name);
    if (options.delete) {
      for (const name of readdirSync(to)) {
        if (names.includes(name)) continue;
        const childPath = path ? `${path}/${name}` : name;
        // An excluded destination file is kept unless --delete-excluded.
        if (!options.deleteExcluded && excluded(childPath, lstatSync(join(to, name)).isDirectory())) continue;
        rmSync(join(to, name), { recursive: true, force: true });
      }
    }
    chmodSync(to, stat.mode & 0o7777);
    utimesSync(to, stat.atime, stat.mtime);
    return;
  }
  if (existsSync(to) && lstatSync(to).isDirectory()) rmSync(to, { recursive: true, force: true });
  copyFileSync(from, to);
  chmodSync(to, stat.mode & 0o7777);
  utimesSync(to, stat.atime, stat.mtime);
}

let failed = false;
for (const operand of operands) {
  if (!existsSync(operand)) {
    process.stderr.write(`rsync: link_stat "${operand}" failed: No such file or directory (2)\n`);
    failed = true;
    continue;
  }
  if (options.relative) {
    // -R: the source's path as given (less a leading "./" or "/") is kept under the destination.
    const kept = posix
      .normalize(operand)
      .replace(/^(\.\/|\/)+/, '')
      .replace(/\/$/, '');
    if (kept === '.' || kept === '') copyEntry(operand, destination, '');
    else {
      const parts = kept.split('/');
      mkdirSync(join(destination, ...parts.slice(0, -1)), { recursive: true });
      copyEntry(operand, join(destination, ...parts), kept);
    }
  } else if (operand.endsWith('/') || operand.endsWith('/.') || lstatSync(operand).isDirectory() === false) {
    // "src/" and "src/." copy the folder's contents; a file is copied into (or as) the destination.
    if (lstatSync(operand).isDirectory()) copyEntry(operand, destination, '');
    else {
      const into = existsSync(destination) && lstatSync(destination).isDirectory();
      const name = posix.basename(operand);
      copyEntry(operand, into ? join(destination, name) : destination, name);
    }
  } else {
    const name = posix.basename(operand);
    mkdirSync(destination, { recursive: true });
    copyEntry(operand, join(destination, name), name);
  }
}
// rsync's code for "some files could not be transferred".
process.exit(failed ? 23 : 0);
