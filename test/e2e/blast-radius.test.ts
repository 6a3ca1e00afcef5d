import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { callApi, emulatorForCli, repository, runCli, type EmulatorForCli } from './cli.js';

// The blast radius end to end: 37 numbers on an inbound trunk, attached outside telform.
let harness: EmulatorForCli;
let folder: string;
const state = ['--state', 'blast.json'];
const numbers = Array.from({ length: 37 }, (_, index) => `1415556${String(1000 + index)}`);

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
const doc = (kind: string, name: string, spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
const base = [
  doc('OriginationUri', 'pbx-a', { uri: 'a.pbx.example.com:5060' }),
  doc('OriginationUri', 'pbx-b', { uri: 'b.pbx.example.com:5060' }),
  doc('Trunk', 'spare', { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'pbx-b' } }),
];
const main = doc('Trunk', 'main', { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'pbx-a' } });

async function write(documents: string[]): Promise<void> {
  await writeFile(path.join(folder, 'pbx.yaml'), documents.join('\n---\n'));
}

async function trunkIds(): Promise<Record<string, { id: string }>> {
  return (
    JSON.parse(await readFile(path.join(folder, 'blast.json'), 'utf8')) as { resources: Record<string, { id: string }> }
  ).resources;
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 60_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-blast-'));
  await write([...base, main]);
  expect((await cli(['apply', '-f', 'pbx.yaml', ...state, '--auto-approve'])).code).toBe(0);
  const mainId = (await trunkIds())['Trunk/main']?.id as string;
  for (const number of numbers) {
    const seeded = await fetch(`${harness.emulator.url}/__emulator/accounts/${defaultAccount.authId}/numbers/`, {
      method: 'POST',
      body: JSON.stringify({ number }),
    });
    expect(seeded.status).toBeLessThan(300);
    expect((await callApi(harness.emulator, 'POST', `/Number/${number}/`, { app_id: mainId })).status).toBeLessThan(
      300,
    );
  }
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('blast radius', () => {
  it('plans "breaks calls to 37 numbers" for deleting the trunk, and apply refuses it without the approval', async () => {
    await write(base);
    const plan = await cli(['plan', '-f', 'pbx.yaml', ...state]);
    expect(plan.stdout).toContain('  #   traffic: breaks calls to 37 numbers\n');
    expect(plan.stdout).toContain('\nBlast radius: breaks calls to 37 numbers.\n');
    expect(plan.stdout).toContain('Approvals needed: --max-numbers-affected 37 (missing).');
    // The example policies warn (not refuse) about a change that breaks more than 10 numbers (a deleted
    // resource has no manifest place, so the finding has none).
    const policy = await cli([
      'plan',
      '-f',
      'pbx.yaml',
      ...state,
      '--policy',
      path.join(repository, 'policies/telecom.yaml'),
    ]);
    expect(policy.stdout).toContain(
      '\n  warning  numbers-affected-reviewed  Trunk/main  this change breaks calls or messages of more than 10 numbers; ask the owner of those numbers [policy]\n',
    );
    const markdown = await cli(['plan', '-f', 'pbx.yaml', ...state, '--format', 'markdown']);
    expect(markdown.stdout).toContain('| **numbers affected** | **37** |');
    expect(markdown.stdout).toContain('- **Trunk/main** will be deleted — breaks calls, breaks calls to 37 numbers');

    const refused = await cli(['apply', '-f', 'pbx.yaml', ...state, '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'refused: the plan breaks calls to 37 numbers and the approved maximum is 0; approve it with --max-numbers-affected 37\n',
    );
    expect(
      (await cli(['apply', '-f', 'pbx.yaml', ...state, '--auto-approve', '--max-numbers-affected', '36'])).code,
    ).toBe(1);

    // The approval travels in a saved plan: the merge job applies it with no flag of its own.
    const saved = await cli(['plan', '-f', 'pbx.yaml', ...state, '--max-numbers-affected', '37', '-o', 'plan.json']);
    expect(saved.code).toBe(0);
    const recorded = JSON.parse(await readFile(path.join(folder, 'plan.json'), 'utf8')) as {
      approvals: Record<string, unknown>;
      summary: Record<string, unknown>;
    };
    expect(recorded.approvals.max_numbers_affected).toBe(37);
    expect(recorded.summary.blast_radius).toEqual({ calls: 37, messages: 0, numbers: 37, trunks: 0, applications: 0 });
    // Put the trunk back first, so the re-pointing case below starts from the same account.
    await write([...base, main]);
    expect((await cli(['plan', '-f', 'pbx.yaml', ...state, '--detailed-exitcode'])).code).toBe(0);
  });

  it('counts 0 when the same numbers are re-pointed to another inbound trunk first', async () => {
    await write([
      ...base,
      ...numbers.map((number) => doc('PhoneNumber', `n${number}`, { number, app_id: { ref: 'spare' } })),
    ]);
    const plan = await cli(['plan', '-f', 'pbx.yaml', ...state, '--format', 'json']);
    const parsed = JSON.parse(plan.stdout) as {
      summary: { blast_radius: unknown };
      changes: Array<{ address: string; action: string; blast?: unknown }>;
    };
    expect(parsed.summary.blast_radius).toEqual({ calls: 0, messages: 0, numbers: 0, trunks: 0, applications: 0 });
    expect(parsed.changes.find((change) => change.address === 'Trunk/main')?.action).toBe('delete');
    expect(parsed.changes.filter((change) => change.blast !== undefined)).toEqual([]);
    const applied = await cli(['apply', '-f', 'pbx.yaml', ...state, '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain('deleted  Trunk/main');
  });
});
