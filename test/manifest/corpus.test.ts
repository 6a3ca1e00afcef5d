import { readdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { heldNote } from '../../src/manifest/document.js';
import { loadManifests } from '../../src/manifest/load.js';
import { formatProblem } from '../../src/manifest/report.js';
import { cyclicCatalog } from './test-kinds.js';

/**
 * The bad-input corpus: one file per broken rule under `corpus/`. Each file says what
 * it breaks in its first comment and ends with `# expect: <line:col  Kind/name  field: message>`
 * lines: exactly the errors `validate` must report, in order, a value rule (enum, length, format,
 * required field) as a `held_value` warning: valid only while the account holds it, refused by plan. Directives in the header:
 * `# options: check-secrets`, `# env: NAME=value`, `# registry: cyclic` (adds a test kind that can
 * refer to itself). No case may throw, and none may open a connection.
 */
const corpus = path.join(import.meta.dirname, 'corpus');

interface Case {
  file: string;
  expected: string[];
  checkSecrets: boolean;
  env: Record<string, string>;
  cyclic: boolean;
}

async function readCases(): Promise<Case[]> {
  const files = (await readdir(corpus)).filter((name) => name.endsWith('.yaml')).sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(path.join(corpus, file), 'utf8');
      const comments = text.split('\n').filter((line) => line.startsWith('# '));
      const values = (key: string) =>
        comments.filter((line) => line.startsWith(`# ${key}: `)).map((line) => line.slice(key.length + 4));
      return {
        file,
        expected: values('expect'),
        checkSecrets: values('options').includes('check-secrets'),
        env: Object.fromEntries(values('env').map((pair) => pair.split('=', 2) as [string, string])),
        cyclic: values('registry').includes('cyclic'),
      };
    }),
  );
}

const cases = await readCases();
const connect = vi.spyOn(net.Socket.prototype, 'connect');
const fetchSpy = vi.spyOn(globalThis, 'fetch');

describe('the bad-input corpus', () => {
  beforeAll(() => {
    connect.mockClear();
    fetchSpy.mockClear();
  });
  afterAll(() => {
    // validate must never send a request.
    expect(connect).not.toHaveBeenCalled();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it('holds at least 60 invalid manifests, each with an expectation', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    for (const entry of cases) expect(entry.expected, entry.file).not.toEqual([]);
  });

  it.each(cases.map((entry) => [entry.file, entry] as const))('%s', async (_file, entry) => {
    const result = await loadManifests([entry.file], {
      cwd: corpus,
      checkSecrets: entry.checkSecrets,
      env: entry.env,
      ...(entry.cyclic ? { catalog: cyclicCatalog } : {}),
    });
    const errors = result.problems
      .filter((problem) => problem.severity === 'error' || problem.code === 'held_value')
      .map((problem) =>
        problem.code === 'held_value'
          ? { ...problem, severity: 'error' as const, message: problem.message.replace(heldNote, '') }
          : problem,
      )
      .map(formatProblem);
    expect(errors).toEqual(entry.expected.map((line) => `${entry.file}:${line}`));
    for (const line of errors) expect(line).not.toMatch(/\n|    at /);
  });
});
