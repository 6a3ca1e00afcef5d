import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { demoSecrets, examplesDir } from './examples.js';

/**
 * The plan's "about N API requests" against what apply really sends (the emulator's request log),
 * and the cost of reading trunks and campaigns, which must not grow with trunks × numbers.
 */
let harness: EmulatorForCli;
let folder: string;
let env: Record<string, string>;

function cli(args: string[]) {
  return runCli(args, { cwd: folder, env });
}

const requestCount = () => harness.emulator.runtime.log.list({ type: 'request' }).length;

/**
 * The plan's estimate (reads and writes), and what an apply of the same state sent; `writes` and
 * `written` leave out the reads (those a plan of the same state sends).
 */
async function applyPhaseRequests(
  args: string[],
): Promise<{ estimate: number; sent: number; writes: number; written: number; stdout: string }> {
  const before = requestCount();
  const plan = await cli(['plan', ...args, '--format', 'json']);
  expect(plan.code).toBe(0);
  const summary = (JSON.parse(plan.stdout) as { summary: { api_requests: number; api_reads: number } }).summary;
  const reads = requestCount() - before;
  expect(summary.api_reads).toBe(reads);
  const start = requestCount();
  const apply = await cli(['apply', ...args, '--auto-approve']);
  expect(apply.stderr).not.toContain('error');
  expect(apply.code).toBe(0);
  const sent = requestCount() - start;
  return {
    estimate: summary.api_requests,
    sent,
    writes: summary.api_requests - summary.api_reads,
    written: sent - reads,
    stdout: apply.stdout,
  };
}

function trunks(count: number, secure: boolean): string {
  const documents = [
    JSON.stringify({
      apiVersion: 'telform/v1',
      kind: 'TrunkIpAcl',
      metadata: { name: 'edge' },
      spec: { ip_addresses: ['203.0.113.9'] },
    }),
  ];
  for (let index = 0; index < count; index += 1) {
    documents.push(
      JSON.stringify({
        apiVersion: 'telform/v1',
        kind: 'Trunk',
        metadata: { name: `trunk-${index}` },
        spec: { trunk_direction: 'outbound', secure, ipacl_uuid: { ref: 'edge' } },
      }),
    );
  }
  return documents.join('\n---\n');
}

// An account per test: each test's state owns its account (the first apply claims it).
beforeEach(async () => {
  harness = await emulatorForCli({ registryDelayMs: 4000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-estimate-'));
  await cp(examplesDir, path.join(folder, 'examples'), { recursive: true });
  env = { ...harness.env, ...demoSecrets() };
});
afterEach(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the request estimate', () => {
  it('is within 10% of what applying the examples sends, and shows the registry polls of --wait as a range', async () => {
    const plan = await cli(['plan', '-f', 'examples/', '--state', 'examples.json']);
    // Campaigns wait for their brands: without --wait apply leaves them; with it, it polls. The
    // counts follow the examples, so they are read from the plan, not written here.
    const line =
      /API requests to apply: about (\d+) \(\d+ to read the account, \d+ to change it\); with --wait 10m, (\d+) to (\d+) \(registry polls\)\.\n$/.exec(
        plan.stdout,
      );
    expect(line).not.toBeNull();
    const [about, least, most] = [Number(line?.[1]), Number(line?.[2]), Number(line?.[3])];
    expect(least).toBeGreaterThan(about);
    expect(most).toBeGreaterThan(least);
    const first = await applyPhaseRequests(['-f', 'examples/', '--state', 'examples.json']);
    expect(first.estimate).toBe(about);
    expect(Math.abs(first.sent - first.estimate)).toBeLessThanOrEqual(Math.ceil(first.estimate * 0.1));
    // The campaigns now wait for their brands, the numbers for a campaign: the estimate counts their polls and writes as a range.
    const waiting = await cli(['plan', '-f', 'examples/', '--state', 'examples.json']);
    const range =
      /API requests to apply: about (\d+) \(\1 to read the account, 0 to change it\); with --wait 10m, (\d+) to (\d+) \(registry polls\)\.\n$/.exec(
        waiting.stdout,
      );
    expect(range).not.toBeNull();
    const start = requestCount();
    const waited = await cli([
      'apply',
      '-f',
      'examples/',
      '--state',
      'examples.json',
      '--auto-approve',
      '--wait',
      '10m',
    ]);
    expect(waited.code).toBe(0);
    const sent = requestCount() - start;
    expect(sent).toBeGreaterThanOrEqual(Number(range?.[2]));
    expect(sent).toBeLessThanOrEqual(Number(range?.[3]));
  });

  it('counts the reads of the account apply makes before it writes: 12 creates in a fresh account', async () => {
    await writeFile(
      path.join(folder, 'twelve.yaml'),
      trunks(11, false).replaceAll('"trunk-', '"twelve-').replaceAll('"edge"', '"twelve-edge"'),
    );
    const args = ['-f', 'twelve.yaml', '--state', 'twelve.json'];
    const plan = await cli(['plan', ...args, '--format', 'json']);
    const summary = (
      JSON.parse(plan.stdout) as { summary: { create: number; api_requests: number; api_reads: number } }
    ).summary;
    const text = await cli(['plan', ...args]);
    const start = requestCount();
    const apply = await cli(['apply', ...args, '--auto-approve']);
    const sent = requestCount() - start;
    expect(apply.code).toBe(0);
    expect(summary.create).toBe(12);
    // Every kind's list is read once (a page each in this account), then the claim of the account
    // nobody owned (a fresh read of the markers, its own, and the read that checks no other state claimed
    // it), then the 12 creates.
    expect(summary.api_reads).toBeGreaterThan(0);
    expect(summary.api_requests).toBe(3 + 12 + summary.api_reads);
    expect(sent).toBe(summary.api_requests);
    expect(text.stdout).toContain(
      `API requests to apply: about ${sent} (${summary.api_reads} to read the account, 15 to change it).\n`,
    );
  });

  it('is within 10% of what a 250-trunk update sends', async () => {
    await writeFile(path.join(folder, 'trunks.yaml'), trunks(250, false));
    const args = ['-f', 'trunks.yaml', '--state', 'trunks.json', '--rate-limit', '100000/1s'];
    const created = await applyPhaseRequests(args);
    // The first apply also claims the account (3 requests).
    expect(created.writes).toBe(254);
    expect(Math.abs(created.sent - created.estimate)).toBeLessThanOrEqual(Math.ceil(created.estimate * 0.1));
    await writeFile(path.join(folder, 'trunks.yaml'), trunks(250, true));
    const start = requestCount();
    const updated = await applyPhaseRequests(args);
    // Each update writes its trunk, computed from the trunk as the plan's read found it: no GET of its own.
    expect(updated.writes).toBe(250);
    expect(updated.written).toBe(250);
    expect(updated.sent).toBe(updated.estimate);
    const trunkGets = harness.emulator.runtime.log
      .list({ type: 'request' })
      .slice(start)
      .filter((request) => request.method === 'GET' && /\/Zentrunk\/Trunk\/[^/]+\/$/.test(request.path));
    expect(trunkGets).toEqual([]);
  }, 120_000);
});

describe('reading trunks with phone numbers attached', () => {
  it('lists the account numbers once per run, however many trunks are updated', async () => {
    const uri = await callApi(harness.emulator, 'POST', '/Zentrunk/URI/', {
      name: 'numbers-uri',
      uri: 'pbx.example.com',
    });
    const documents = [
      JSON.stringify({
        apiVersion: 'telform/v1',
        kind: 'OriginationUri',
        metadata: { name: 'numbers-uri' },
        spec: { uri: 'pbx.example.com' },
      }),
    ];
    for (let index = 0; index < 10; index += 1) {
      documents.push(
        JSON.stringify({
          apiVersion: 'telform/v1',
          kind: 'Trunk',
          metadata: { name: `inbound-${index}` },
          spec: { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'numbers-uri' }, trunk_status: 'enabled' },
        }),
      );
    }
    await writeFile(path.join(folder, 'inbound.yaml'), documents.join('\n---\n'));
    const args = ['-f', 'inbound.yaml', '--state', 'inbound.json'];
    expect(uri.status).toBe(201);
    expect((await cli(['apply', ...args, '--auto-approve'])).code).toBe(0);
    const inbound = [
      ...(harness.emulator.runtime.state.accounts.get(defaultAccount.authId)?.trunks.values() ?? []),
    ].filter((trunk) => trunk.name.startsWith('inbound-'));
    expect(inbound).toHaveLength(10);
    // 100 numbers, ten on each trunk; with the five every account starts with, six pages of the number list.
    for (let index = 0; index < 100; index += 1) {
      const seeded = await fetch(`${harness.emulator.url}/__emulator/accounts/${defaultAccount.authId}/numbers/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          number: `1415555${String(index).padStart(4, '0')}`,
          app_id: inbound[index % 10]?.trunk_id,
        }),
      });
      expect(seeded.status).toBe(201);
    }
    await writeFile(
      path.join(folder, 'inbound.yaml'),
      documents.join('\n---\n').replaceAll('"trunk_status":"enabled"', '"trunk_status":"disabled"'),
    );
    const start = harness.emulator.runtime.log.list().length;
    // Disabling the trunks stops calls to their numbers: the blast radius is approved.
    const apply = await cli(['apply', ...args, '--auto-approve', '--max-numbers-affected', '100']);
    expect(apply.stdout).toContain('Apply complete: 0 created, 10 updated');
    const numberPages = harness.emulator.runtime.log
      .list({ type: 'request' })
      .slice(start)
      .filter((entry) => entry.path.endsWith('/Number/'));
    expect(numberPages).toHaveLength(6);
  }, 60_000);
});
