import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { loadManifests, type LoadOptions, type LoadResult } from '../../src/manifest/load.js';
import { formatProblem } from '../../src/manifest/report.js';

/** Temp folders made by `writeManifests`, removed after each test. */
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** Writes files (name → content) into a fresh temp folder; returns the folder. */
export async function writeManifests(files: Record<string, string | Buffer>): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-manifest-'));
  folders.push(folder);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(folder, name)), { recursive: true });
    await writeFile(path.join(folder, name), content);
  }
  return folder;
}

/** Loads manifests given as text, from a temp folder used as the working directory. */
export async function loadText(
  files: Record<string, string | Buffer>,
  options: Partial<LoadOptions> = {},
): Promise<LoadResult> {
  const folder = await writeManifests(files);
  return loadManifests(
    Object.keys(files).filter((name) => /\.ya?ml$/.test(name)),
    { cwd: folder, env: {}, ...options },
  );
}

/** The formatted problem lines, as `validate` prints them. */
export function lines(result: LoadResult, severity?: 'error' | 'warning'): string[] {
  return result.problems
    .filter((problem) => severity === undefined || problem.severity === severity)
    .map(formatProblem);
}

/** A document: the envelope around a spec written as YAML lines (indented by the caller's two spaces). */
export function doc(kind: string, name: string, spec: string): string {
  return `apiVersion: telform/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n${spec
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `  ${line}`)
    .join('\n')}\n`;
}
