import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * `npm run bench` on the smallest account, end to end: the harness keeps working (it is not part of
 * the suite otherwise) and the request counts it reports hold. Only counts are asserted, never
 * times: the machines running the suite are shared.
 */
const run = promisify(execFile);

interface Row {
  size: number | string;
  scenario: string;
  requests: number;
  floor_s: number;
  request_floor_s: number;
  pages_floor?: number;
  walls_s?: number[];
  wall_s: number;
  profile?: string;
  stages_ms: Record<string, { cpu_ms: number }> | null;
}

let folder: string;
let rows: Row[];
let startUp: number;
let stdout: string;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-bench-smoke-'));
  const results = path.join(folder, 'results.json');
  const profiles = path.join(folder, 'profiles');
  ({ stdout } = await run(process.execPath, ['test/bench/run.mjs'], {
    env: {
      ...process.env,
      BENCH_SIZES: '100',
      BENCH_PRODUCT: '0',
      BENCH_RESULTS: results,
      BENCH_PROFILE_DIR: profiles,
    },
    maxBuffer: 10 * 1024 * 1024,
  }));
  ({ rows, start_up_s: startUp } = JSON.parse(await readFile(results, 'utf8')) as { rows: Row[]; start_up_s: number });
}, 240_000);

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

function row(scenario: string): Row {
  const found = rows.find((candidate) => candidate.scenario === scenario);
  if (!found) throw new Error(`no row "${scenario}" in ${rows.map((candidate) => candidate.scenario).join(', ')}`);
  return found;
}

describe('npm run bench (100 resources)', () => {
  it('measures every scenario and prints its table', () => {
    expect(rows.map((candidate) => candidate.scenario)).toEqual([
      'plan, empty account',
      'apply, create all, no limit',
      'plan, converged',
      'drift, converged',
      'import',
      'naive: one GET per object, serially',
      'naive: one GET per object, 10 at a time',
      'apply, 10% changed, no limit',
      'apply, 10% changed, 300/5s',
      'apply, create all, 300/5s',
    ]);
    for (const candidate of rows) expect(stdout).toContain(candidate.scenario);
  });

  it('reads a converged account in at most one page per 20 objects plus one per kind', () => {
    const converged = row('plan, converged');
    expect(converged.pages_floor).toBeGreaterThan(0);
    expect(converged.requests).toBeLessThanOrEqual(converged.pages_floor ?? 0);
    expect(row('drift, converged').requests).toBe(converged.requests);
    // Three runs each, the row the median one.
    for (const scenario of ['plan, converged', 'drift, converged']) {
      const { walls_s: walls = [], wall_s: wall } = row(scenario);
      expect(walls).toHaveLength(3);
      expect([...walls].sort((a, b) => a - b)[1]).toBe(wall);
    }
  });

  it("adds start-up (telform --version) to every CLI run's floor, not to the naive reads sent in process", () => {
    expect(startUp).toBeGreaterThan(0);
    expect(stdout).toContain(`start-up (median of 9 × telform --version) ${startUp.toFixed(2)} s`);
    for (const candidate of rows) {
      const added = candidate.scenario.startsWith('naive:') ? 0 : startUp;
      expect(candidate.floor_s).toBeCloseTo(candidate.request_floor_s + added, 1);
    }
  });

  it('sends one request per object only in the naive comparison', () => {
    expect(row('naive: one GET per object, serially').requests).toBe(100);
    expect(row('plan, converged').requests).toBeLessThan(100 / 4);
  });

  it('records the CPU of each stage and a profile that the summary reads', async () => {
    const converged = row('plan, converged');
    expect(Object.keys(converged.stages_ms ?? {}).sort()).toEqual(['diff', 'load', 'order', 'read', 'render']);
    expect(converged.profile).toMatch(/\.cpuprofile$/);
    const profiles = await readdir(path.join(folder, 'profiles'));
    expect(profiles).toContain(converged.profile);
    const summary = await run(process.execPath, [
      'test/bench/profile-summary.mjs',
      path.join(folder, 'profiles', converged.profile ?? ''),
      '5',
    ]);
    expect(summary.stdout).toMatch(/by group \(self time\)/);
    expect(summary.stdout).toMatch(/module loading/);
    expect(summary.stdout).toMatch(/top 5 functions/);
  });
});
