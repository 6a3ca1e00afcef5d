import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { startServeCli } from './serve-harness.js';
import { teaBrandAndCampaign } from './examples.js';

/**
 * The history and the way back, through the built CLI against the emulator: two applies from two
 * commits, `history` naming both, `revert` planning exactly the first one's values, the revert
 * applied (drift of the first manifests clean, three records that verify), one edited byte named by
 * `history verify`; and a deleted campaign that comes back only as a new registration, marked irreversible and approved.
 */
const git = promisify(execFile);
let harness: EmulatorForCli;
let folder: string;
const secrets = { PBX_URI_PASSWORD: 'Uri-secret-0001#' };
const cli = (args: string[]) => runCli(args, { cwd: folder, env: { ...harness.env, ...secrets } });
const commit = async (message: string): Promise<string> => {
  await git('git', ['-c', 'user.name=Ops', '-c', 'user.email=ops@example.com', 'commit', '-q', '-am', message], {
    cwd: folder,
  });
  return (await git('git', ['rev-parse', 'HEAD'], { cwd: folder })).stdout.trim();
};

const versionA = `# The office PBX's inbound side.
apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: pbx-office
spec:
  ip_addresses:
    - 203.0.113.10
    - 198.51.100.0/28
---
apiVersion: telform/v1
kind: OriginationUri
metadata:
  name: pbx-primary
spec:
  uri: sip.pbx.example.com:5060;transport=tcp
---
apiVersion: telform/v1
kind: OriginationUri
metadata:
  name: pbx-backup
spec:
  uri: 203.0.113.20:5060
  authentication_needed: true
  username: pbxinbound
  password: { fromEnv: PBX_URI_PASSWORD }
`;
const versionB = versionA.replace('    - 198.51.100.0/28\n', '').replace('sip.pbx.example.com', 'sip.pbx2.example.net');

beforeAll(async () => {
  // Production's shapes: a campaign read back without the fields production leaves out, as a revert meets it.
  harness = await emulatorForCli({ registryDelayMs: 200, shapes: 'production' });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-history-'));
  await git('git', ['init', '-q'], { cwd: folder });
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('history and revert', () => {
  it('lists two applies with their commits, reverts the second to exactly the first, and verifies the chain', async () => {
    await writeFile(path.join(folder, 'pbx.yaml'), versionA);
    await writeFile(path.join(folder, 'a.yaml'), versionA);
    await git('git', ['add', '.'], { cwd: folder });
    const commitA = await commit('A');
    expect((await cli(['apply', '-f', 'pbx.yaml', '--auto-approve'])).code).toBe(0);
    await writeFile(path.join(folder, 'pbx.yaml'), versionB);
    const commitB = await commit('B');
    expect((await cli(['apply', '-f', 'pbx.yaml', '--auto-approve'])).code).toBe(0);

    const listed = await cli(['history']);
    expect(listed.code).toBe(0);
    const headings = listed.stdout.split('\n').filter((line) => line.startsWith('#'));
    expect(headings).toEqual([
      expect.stringMatching(
        new RegExp(`^#2  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC  apply  commit ${commitB.slice(0, 7)}, by `),
      ),
      expect.stringMatching(
        new RegExp(`^#1  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC  apply  commit ${commitA.slice(0, 7)}, by `),
      ),
    ]);
    expect(listed.stdout).toContain(
      '    ~ OriginationUri/pbx-primary  update\n    ~ TrunkIpAcl/pbx-office  update\n    applied · 2 changes · ',
    );
    const timeline = await cli(['history', 'OriginationUri/pbx-primary']);
    expect(timeline.stdout).toContain(
      '        uri: "sip.pbx.example.com:5060;transport=tcp" → "sip.pbx2.example.net:5060;transport=tcp"\n',
    );
    const history = await readFile(path.join(folder, 'telform.state.json.history'), 'utf8');
    expect(history).not.toContain(secrets.PBX_URI_PASSWORD);

    // The revert's plan: exactly A's values back, nothing else.
    const saved = await cli(['revert', '2', '-o', 'revert.json']);
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(
      '      ~ uri: "sip.pbx2.example.net:5060;transport=tcp" → "sip.pbx.example.com:5060;transport=tcp"\n',
    );
    expect(saved.stdout).toContain('      + ip_addresses["198.51.100.0/28"] = "198.51.100.0/28"\n');
    expect(saved.stdout).toContain('Plan: 0 to create, 2 to update, 0 to replace, 0 to delete.');
    const plan = JSON.parse(await readFile(path.join(folder, 'revert.json'), 'utf8')) as {
      changes: Array<{ address: string; action: string; after: unknown }>;
      seal?: unknown;
    };
    const applied = JSON.parse(await readFile(path.join(folder, 'telform.state.json'), 'utf8')) as {
      resources: Record<string, { applied_spec: unknown }>;
    };
    const first = JSON.parse(history.split('\n')[0] as string) as {
      changes: Array<{ address: string; after: unknown }>;
    };
    expect(plan.seal).toBeDefined();
    expect(plan.changes.map((change) => [change.address, change.action])).toEqual([
      ['OriginationUri/pbx-primary', 'update'],
      ['TrunkIpAcl/pbx-office', 'update'],
    ]);
    for (const change of plan.changes)
      expect(change.after).toEqual(first.changes.find((made) => made.address === change.address)?.after);
    expect(applied.resources['OriginationUri/pbx-primary']?.applied_spec).toMatchObject({
      uri: 'sip.pbx2.example.net:5060;transport=tcp',
    });

    const reverted = await cli(['revert', '2', '--auto-approve']);
    expect(reverted.code).toBe(0);
    expect(reverted.stderr).toContain('recorded as #3 in the history (revert of #2)');
    const drift = await cli(['drift', '-f', 'a.yaml']);
    expect([drift.code, drift.stdout]).toEqual([0, 'In sync: the account matches the manifests and the state.\n']);
    const verified = await cli(['history', 'verify']);
    expect([verified.code, verified.stdout]).toEqual([
      0,
      'the history of telform.state.json verifies: 3 records, #1 to #3, each chained to the one before, the newest as the state anchors it\n',
    ]);
    expect((await cli(['history'])).stdout).toMatch(/\n#3 {2}\S+ \S+ UTC {2}revert of #2 {2}commit /);

    // --write: the manifests of B get A's values back, every other byte kept.
    const written = await cli(['revert', '2', '--write', '-f', 'pbx.yaml']);
    expect(written.stdout).toBe(
      'wrote pbx.yaml: OriginationUri/pbx-primary uri\nwrote pbx.yaml: TrunkIpAcl/pbx-office ip_addresses\n',
    );
    expect(await readFile(path.join(folder, 'pbx.yaml'), 'utf8')).toBe(versionA);

    // One byte of the second record changed: verify names it.
    const lines = (await readFile(path.join(folder, 'telform.state.json.history'), 'utf8')).split('\n');
    lines[1] = (lines[1] as string).replace('pbx2', 'pbx3');
    await writeFile(path.join(folder, 'telform.state.json.history'), lines.join('\n'));
    const broken = await cli(['history', 'verify']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toBe(
      'error: the history of telform.state.json does not verify: record #2 (line 2) does not fit: its content does not match its hash (it was edited after it was written)\n',
    );
  });

  it('plans a deleted campaign back only as a new, billed registration marked irreversible, refused without its approvals; saved and applied, it is recorded as the revert', async () => {
    const tea = teaBrandAndCampaign(
      { brand: 'tea', campaign: 'tea-orders' },
      'Tea orders',
      'Fabrikam Tea: your order 882 is out for delivery.',
    );
    await writeFile(path.join(folder, 'tea.yaml'), tea);
    const state = ['--state', 'tea.state.json'];
    const records = async () =>
      (await readFile(path.join(folder, 'tea.state.json.history'), 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The account is the first test's state's: handed over to this one, which claims it on its first apply.
    expect((await cli(['state', 'release'])).code).toBe(0);
    const created = await cli([...state, 'apply', '-f', 'tea.yaml', '--auto-approve', '--wait', '1m']);
    expect(created.code).toBe(0);
    await writeFile(path.join(folder, 'tea.yaml'), tea.slice(0, tea.indexOf('---')));
    const deleted = await cli([
      ...state,
      'apply',
      '-f',
      'tea.yaml',
      '--auto-approve',
      '--allow-irreversible',
      'Campaign/tea-orders',
      '--force-deletes',
    ]);
    expect(deleted.code).toBe(0);
    const seq = (await records()).at(-1)?.seq as number;

    const refused = await cli([...state, 'revert', String(seq), '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      `apply #${seq} deleted it: it returns only as a new registration (a new id, a new vetting that can take days), never as the one that was deleted`,
    );
    expect(refused.stdout).toContain("registering it again submits it to the registry's vetting review: 15 USD");
    // A first registration is not billed; one that comes back through revert is a new vetting review.
    expect(refused.stdout).toContain('Cost: 15 USD. Irreversible: 1.');
    expect(refused.stderr).toContain(
      'Campaign/tea-orders would be registered anew (a new id, a new vetting), which cannot be undone; approve it with --allow-irreversible Campaign/tea-orders',
    );
    expect(refused.stderr).toContain(
      'the plan costs 15 USD (campaign vetting reviews) and the approved maximum is 0 USD; approve it with --max-cost 15',
    );
    const unpriced = await cli([
      ...state,
      'revert',
      String(seq),
      '--auto-approve',
      '--allow-irreversible',
      'Campaign/tea-orders',
    ]);
    expect(unpriced.code).toBe(1);
    expect(unpriced.stderr).toContain('approve it with --max-cost 15');
    expect(unpriced.stderr).not.toContain('--allow-irreversible Campaign/tea-orders');
    expect((await records()).at(-1)?.seq).toBe(seq);

    const saved = await cli([
      ...state,
      'revert',
      String(seq),
      '-o',
      'tea-revert.json',
      '--allow-irreversible',
      'Campaign/tea-orders',
      '--max-cost',
      '15',
    ]);
    expect(saved.code).toBe(0);
    const plan = JSON.parse(await readFile(path.join(folder, 'tea-revert.json'), 'utf8')) as {
      reverts: number;
      summary: { cost_usd: number; irreversible: number };
      changes: Array<{ address: string; action: string; flags: { irreversible: boolean; billable_usd: number } }>;
    };
    // The brand it refers to comes along, unchanged.
    expect(
      plan.changes.map((change) => [
        change.address,
        change.action,
        change.flags.irreversible,
        change.flags.billable_usd,
      ]),
    ).toEqual([
      ['Brand/tea', 'noop', false, 0],
      ['Campaign/tea-orders', 'create', true, 15],
    ]);
    expect([plan.reverts, plan.summary.cost_usd, plan.summary.irreversible]).toEqual([seq, 15, 1]);

    const applied = await cli([...state, 'apply', 'tea-revert.json']);
    expect(applied.code).toBe(0);
    expect(applied.stderr).toContain(`recorded as #${seq + 1} in the history (revert of #${seq})`);
    const revert = (await records()).at(-1) as {
      seq: number;
      trigger: string;
      reverts: number;
      fees_usd: number;
      changes: Array<{ address: string; action: string; fees_usd: number; irreversible?: boolean }>;
    };
    expect([revert.seq, revert.trigger, revert.reverts, revert.fees_usd]).toEqual([seq + 1, 'revert', seq, 15]);
    expect(revert.changes.filter((change) => change.action !== 'noop')).toMatchObject([
      { address: 'Campaign/tea-orders', action: 'create', fees_usd: 15, irreversible: true },
    ]);
    const listed = await cli([...state, 'history', '--limit', '1']);
    expect(listed.stdout).toContain(`#${seq + 1}  `);
    expect(listed.stdout).toContain(`revert of #${seq}`);
  });

  it('reports a trunk changed by hand between two serve intervals with the window between them', async () => {
    const trunk = `apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: dock
spec:
  ip_addresses: [203.0.113.40]
---
apiVersion: telform/v1
kind: Trunk
metadata:
  name: dock-out
spec:
  trunk_direction: outbound
  secure: false
  ipacl_uuid: { ref: dock }
`;
    await writeFile(path.join(folder, 'dock.yaml'), trunk);
    const state = ['--state', 'dock.state.json'];
    expect((await cli(['--state', 'tea.state.json', 'state', 'release'])).code).toBe(0);
    expect((await cli([...state, 'apply', '-f', 'dock.yaml', '--auto-approve'])).code).toBe(0);
    const id = (
      JSON.parse(await readFile(path.join(folder, 'dock.state.json'), 'utf8')) as {
        resources: Record<string, { id: string }>;
      }
    ).resources['Trunk/dock-out']?.id;

    const serve = await startServeCli(
      [...state, '-f', 'dock.yaml', '--listen', '127.0.0.1:0', '--interval', '1s', '--jitter', '0'],
      { cwd: folder, env: { ...harness.env, ...secrets } },
    );
    try {
      await serve.waitForEvent((event) => event.type === 'account_status' && event.to === 'in_sync', {
        timeoutMs: 30_000,
      });
      // A later check sees it in sync again and moves the window's start (any check in sync will do).
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect((await callApi(harness.emulator, 'POST', `/Zentrunk/Trunk/${id}/`, { secure: true })).status).toBeLessThan(
        300,
      );
      const seen = await serve.waitForLog(
        (line) => line.address === 'Trunk/dock-out' && typeof line.changed_before === 'string',
        { timeoutMs: 30_000 },
      );
      expect(typeof seen.in_sync_at).toBe('string');
      expect(Date.parse(seen.in_sync_at as string)).toBeLessThan(Date.parse(seen.changed_before as string));
    } finally {
      await serve.stop('SIGTERM');
    }
    const records = (await readFile(path.join(folder, 'dock.state.json.history'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const drift = records.find((record) => record.type === 'drift') as {
      drifted: Array<{ address: string; since: string }>;
      at: string;
    };
    expect(drift.drifted).toEqual([{ address: 'Trunk/dock-out', since: expect.any(String) }]);
    const since = drift.drifted[0]?.since ?? '';
    // Minutes, or seconds when both checks fall within one minute.
    const width = since.slice(0, 16) === drift.at.slice(0, 16) ? 19 : 16;
    const window = `Trunk/dock-out: in sync at the check at ${since.slice(0, 10)} ${since.slice(11, width)} UTC; changed before the check at ${drift.at.slice(0, 10)} ${drift.at.slice(11, width)} UTC (seen by serve)`;
    const checked = await cli([...state, 'drift', '-f', 'dock.yaml']);
    expect(checked.code).toBe(2);
    expect(checked.stdout).toContain(`\nWhen (from the history of dock.state.json):\n  ${window}\n`);
    expect((await cli([...state, 'history', 'Trunk/dock-out'])).stdout).toContain('drift seen');
  });
});
