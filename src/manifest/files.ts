import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ProblemList } from './problems.js';

/**
 * Which files `-f PATH` names and their text: a file is read whatever its
 * name; a folder is searched recursively for `*.yaml` and `*.yml`, in sorted order, skipping
 * entries whose name starts with `.` (`.git`, `.telform`) and `node_modules`.
 */

/**
 * Largest manifest file read, in bytes. Whole files are parsed in memory, so a path pointed at a
 * log or a data dump is refused instead of exhausting memory; 10,000 resources take about 3 MB.
 */
export const maxFileBytes = 8 * 1024 * 1024;

const manifestExtensions = new Set(['.yaml', '.yml']);

/**
 * The conventional name of an accounts file kept with the manifests it names (a fleet: a shared
 * folder whose manifests take per-account values). It is never a manifest, and a folder holding
 * one is skipped by `-f` on a folder above it: its manifests mean something only with the values
 * the accounts file gives (`--accounts`). Naming that folder itself with `-f` still reads it.
 */
export const fleetAccountsFile = 'telform-accounts.yaml';

/**
 * Test files (`telform test`) are never manifests, and a folder holding one is skipped by `-f` on a
 * folder above it, as a fleet's is: the manifests beside tests are fixtures (a campaign meant to be
 * declined, a trunk that breaks a policy), not part of the account. A test names them itself.
 */
const testFileSuffix = '.tftest.yaml';

export interface ManifestText {
  /** The path as it will be shown: relative to the working directory when inside it. */
  file: string;
  /** Absolute path, to resolve `fromFile` secrets against. */
  absolute: string;
  text: string;
}

/** Shows `absolute` relative to `cwd` when it lies inside it, else as is. */
export function displayPath(absolute: string, cwd: string): string {
  const relative = path.relative(cwd, absolute);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
}

/**
 * Expands the `-f` arguments into manifest files, each once, in argument order and sorted within
 * a folder. A path that does not exist is a problem, not an exception.
 */
export async function listManifestFiles(
  paths: readonly string[],
  cwd: string,
  problems: ProblemList,
): Promise<string[]> {
  const found: string[] = [];
  const seen = new Set<string>();
  const add = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    found.push(file);
  };
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    let info;
    try {
      info = await stat(absolute);
    } catch (error) {
      problems.error('file_unreadable', `cannot read ${given}: ${describeFsError(error)}`, {
        source: { file: given, line: 0, column: 0 },
      });
      continue;
    }
    if (info.isDirectory()) {
      for (const file of await walkFolder(absolute, new Set(), true)) add(file);
    } else {
      add(absolute);
    }
  }
  return found;
}

/**
 * The folders `-f PATH` loads manifests from: a folder as given, a file's own folder. Secret files
 * must lie inside one of them, so a manifest cannot read anything else on the machine.
 */
export async function manifestRoots(paths: readonly string[], cwd: string): Promise<string[]> {
  const roots = new Set<string>();
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const info = await stat(absolute).catch(() => undefined);
    if (info) roots.add(info.isDirectory() ? absolute : path.dirname(absolute));
  }
  return [...roots];
}

async function walkFolder(folder: string, visited: Set<string>, given = false): Promise<string[]> {
  // A symbolic link back to an ancestor must not loop forever.
  const real = await realpath(folder);
  if (visited.has(real)) return [];
  visited.add(real);
  const entries = await readdir(folder, { withFileTypes: true });
  if (!given && entries.some((entry) => entry.name === fleetAccountsFile || entry.name.endsWith(testFileSuffix)))
    return [];
  const names = entries
    .map((entry) => entry.name)
    .filter(
      (name) =>
        !name.startsWith('.') &&
        name !== 'node_modules' &&
        name !== fleetAccountsFile &&
        !name.endsWith(testFileSuffix),
    );
  names.sort();
  const files: string[] = [];
  for (const name of names) {
    const full = path.join(folder, name);
    let info;
    try {
      info = await stat(full);
    } catch {
      continue; // a dangling symbolic link is not a manifest
    }
    if (info.isDirectory()) files.push(...(await walkFolder(full, visited)));
    else if (info.isFile() && manifestExtensions.has(path.extname(name).toLowerCase())) files.push(full);
  }
  return files;
}

/**
 * Reads one manifest file as UTF-8 text. Too large, unreadable, not UTF-8, or holding control
 * characters YAML forbids (a binary file): a problem at the first offending byte, and undefined.
 */
export async function readManifestFile(
  absolute: string,
  cwd: string,
  problems: ProblemList,
): Promise<ManifestText | undefined> {
  const file = displayPath(absolute, cwd);
  const at = (line: number, column: number) => ({ source: { file, line, column } });
  let bytes: Buffer;
  try {
    const info = await stat(absolute);
    if (info.size > maxFileBytes) {
      problems.error(
        'file_too_large',
        `the file is ${formatMegabytes(info.size)}, over the ${formatMegabytes(maxFileBytes)} limit for one manifest file; split it into several files`,
        at(1, 1),
      );
      return undefined;
    }
    bytes = await readFile(absolute);
  } catch (error) {
    problems.error('file_unreadable', `cannot read the file: ${describeFsError(error)}`, at(0, 0));
    return undefined;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    const { line, column } = lineColumnOfByte(bytes, offset);
    problems.error('file_not_text', 'the file is not UTF-8 text (a binary file?)', at(line, column));
    return undefined;
  }
  // YAML 1.2 section 5.1: only tab, line feed, carriage return and printable characters.
  const control = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFE\uFFFF]/.exec(text);
  if (control) {
    const { line, column } = lineColumnOfOffset(text, control.index);
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    problems.error(
      'file_not_text',
      `the file holds the control character U+${code}, which YAML does not allow (a binary file?)`,
      at(line, column),
    );
    return undefined;
  }
  return { file, absolute, text };
}

function formatMegabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

function lineColumnOfOffset(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

function lineColumnOfByte(bytes: Buffer, offset: number): { line: number; column: number } {
  const before = bytes.subarray(0, offset).toString('utf8');
  return lineColumnOfOffset(before, before.length);
}

/** Byte offset of the first byte that does not start or continue a valid UTF-8 sequence. */
function firstInvalidUtf8(bytes: Buffer): number {
  let index = 0;
  while (index < bytes.length) {
    const byte = bytes[index] as number;
    const length =
      byte < 0x80
        ? 1
        : byte >= 0xc2 && byte < 0xe0
          ? 2
          : byte >= 0xe0 && byte < 0xf0
            ? 3
            : byte >= 0xf0 && byte < 0xf5
              ? 4
              : 0;
    if (length === 0) return index;
    for (let next = 1; next < length; next++) {
      const continuation = bytes[index + next];
      if (continuation === undefined || (continuation & 0xc0) !== 0x80) return index;
    }
    index += length;
  }
  return index;
}
