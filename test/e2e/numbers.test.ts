import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { callApi, emulatorForCli, runCli, type EmulatorForCli, ownerOf } from './cli.js';

/** PhoneNumber on trunks end to end: attach, re-point, detach, re-attach, refusals, drift and import. */
let harness: EmulatorForCli;
let folder: string;

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });
const api = (method: string, pathname: string, body?: unknown) => callApi(harness.emulator, method, pathname, body);

function doc(kind: string, name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
}

async function write(file: string, documents: string[]): Promise<string> {
  await writeFile(path.join(folder, file), documents.join('\n---\n'));
  return file;
}

async function seedNumber(number: string, extra: Record<string, unknown> = {}): Promise<void> {
  const response = await fetch(`${harness.emulator.url}/__emulator/accounts/${defaultAccount.authId}/numbers/`, {
    method: 'POST',
    body: JSON.stringify({ number, ...extra }),
  });
  if (response.status >= 300) throw new Error(`seeding ${number}: ${response.status} ${await response.text()}`);
}

async function ledgerId(state: string, address: string): Promise<string> {
  const ledger = JSON.parse(await readFile(path.join(folder, state), 'utf8')) as {
    resources: Record<string, { id: string }>;
  };
  return (ledger.resources[address] as { id: string }).id;
}

/** Where a number's calls go: the id at the end of its `application` path, or null. */
async function attachedTo(number: string): Promise<string | null> {
  const answer = await api('GET', `/Number/${number}/`);
  const application = answer.body.application;
  return typeof application === 'string' ? (/\/([^/]+)\/$/.exec(application)?.[1] ?? application) : null;
}

const uri = (name: string, host: string) => doc('OriginationUri', name, { uri: `${host}:5060` });
const inbound = (name: string, uriName: string) =>
  doc('Trunk', name, { trunk_direction: 'inbound', primary_uri_uuid: { ref: uriName } });
const numberDoc = (name: string, number: string, spec: Record<string, unknown> = {}) =>
  doc('PhoneNumber', name, { number, ...spec });

/** The PBX of the first test: one URI, one inbound trunk, and the main and sales lines (each on `trunk` or detached). */
function pbx(trunk: string, lines: { main: string | null; sales?: string | null }): string[] {
  const on = (name: string | null | undefined) => (name ? { app_id: { ref: name } } : {});
  return [
    uri('pbx', 'sip.pbx.example.com'),
    inbound(trunk, 'pbx'),
    numberDoc('main-line', '+14155550100', on(lines.main)),
    ...(lines.sales === undefined ? [] : [numberDoc('sales-line', '14155550101', on(lines.sales))]),
  ];
}

/** The account passes from the state of the test before to `state`, explicitly: each test's state owns it in turn. */
async function handOverTo(state: string): Promise<void> {
  expect((await cli(['--state', state, 'state', 'claim', '--take-over', await ownerOf(harness.emulator)])).code).toBe(
    0,
  );
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 60_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-numbers-'));
  for (const number of ['14155550100', '14155550101', '14155550102', '14155550103', '14155550104'])
    await seedNumber(number);
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('phone numbers on inbound trunks', () => {
  it('attaches numbers, re-points them to a new trunk before the old one goes, detaches and re-attaches one', async () => {
    const state = ['--state', 'pbx.json'];
    const file = await write('pbx.yaml', pbx('pbx-in', { main: 'pbx-in', sales: 'pbx-in' }));
    const attach = await cli(['apply', '-f', file, ...state, '--auto-approve']);
    expect(attach.code).toBe(0);
    expect(attach.stderr).toContain('updated  PhoneNumber/main-line (id 14155550100)');
    const trunkId = await ledgerId('pbx.json', 'Trunk/pbx-in');
    expect(await attachedTo('14155550100')).toBe(trunkId);
    expect(await attachedTo('14155550101')).toBe(trunkId);
    expect((await cli(['plan', '-f', file, ...state, '--detailed-exitcode'])).code).toBe(0);

    // Re-point: a new trunk takes the numbers, and the old trunk is deleted only after they moved.
    await write('pbx.yaml', pbx('pbx-in-2', { main: 'pbx-in-2', sales: 'pbx-in-2' }));
    const plan = await cli(['plan', '-f', file, ...state, '--format', 'json']);
    const changes = (
      JSON.parse(plan.stdout) as {
        changes: Array<{ address: string; action: string; flags: Record<string, unknown>; depends_on: string[] }>;
      }
    ).changes;
    const oldTrunk = changes.find((change) => change.address === 'Trunk/pbx-in');
    expect(oldTrunk).toMatchObject({ action: 'delete', flags: { breaks_calls: false } });
    expect(oldTrunk?.depends_on).toEqual(['PhoneNumber/main-line', 'PhoneNumber/sales-line']);
    expect(changes.find((change) => change.address === 'PhoneNumber/main-line')).toMatchObject({
      action: 'update',
      depends_on: ['Trunk/pbx-in-2'],
    });
    const since = harness.emulator.runtime.log.list({ type: 'request' }).length;
    expect((await cli(['apply', '-f', file, ...state, '--auto-approve', '--force-deletes'])).code).toBe(0);
    const newTrunkId = await ledgerId('pbx.json', 'Trunk/pbx-in-2');
    expect(await attachedTo('14155550100')).toBe(newTrunkId);
    const writes = harness.emulator.runtime.log
      .list({ type: 'request' })
      .slice(since)
      .filter((entry) => entry.method !== 'GET')
      .map((entry) => `${entry.method} ${entry.path.replace(/^\/v1\/Account\/[^/]+/, '')}`);
    const deleteAt = writes.indexOf(`DELETE /Zentrunk/Trunk/${trunkId}/`);
    expect(deleteAt).toBeGreaterThan(writes.indexOf('POST /Number/14155550100/'));
    expect(deleteAt).toBeGreaterThan(writes.indexOf('POST /Number/14155550101/'));
    expect(writes.indexOf('POST /Number/14155550100/')).toBeGreaterThan(writes.indexOf('POST /Zentrunk/Trunk/'));

    // Detach one: flagged, since its calls stop reaching the PBX.
    await write('pbx.yaml', pbx('pbx-in-2', { main: 'pbx-in-2', sales: null }));
    const detach = await cli(['plan', '-f', file, ...state]);
    expect(detach.stdout).toContain(
      `  #   detaches it from trunk ${newTrunkId}: calls to 14155550101 stop reaching it`,
    );
    expect(detach.stdout).toContain('breaks calls');
    expect((await cli(['apply', '-f', file, ...state, '--auto-approve', '--max-numbers-affected', '1'])).code).toBe(0);
    expect(await attachedTo('14155550101')).toBeNull();
    expect((await cli(['plan', '-f', file, ...state, '--detailed-exitcode'])).code).toBe(0);

    // Re-attach it, then let its document go: the number is detached, never released.
    await write('pbx.yaml', pbx('pbx-in-2', { main: 'pbx-in-2', sales: 'pbx-in-2' }));
    expect((await cli(['apply', '-f', file, ...state, '--auto-approve'])).code).toBe(0);
    expect(await attachedTo('14155550101')).toBe(newTrunkId);
    await write('pbx.yaml', pbx('pbx-in-2', { main: 'pbx-in-2' }));
    const remove = await cli(['plan', '-f', file, ...state]);
    expect(remove.stdout).toContain(
      [
        '  # PhoneNumber/sales-line will be deleted [breaks calls]',
        '  #   removed from the manifests',
        `  #   detaches it from trunk ${newTrunkId}: calls to 14155550101 stop reaching it`,
      ].join('\n'),
    );
    expect((await cli(['apply', '-f', file, ...state, '--auto-approve', '--max-numbers-affected', '1'])).code).toBe(0);
    expect(await attachedTo('14155550101')).toBeNull();
    expect((await api('GET', '/Number/14155550101/')).status).toBe(200);
  });

  it('refuses an outbound trunk at validate, with the line, and in the plan when the live trunk is outbound', async () => {
    const acl = doc('TrunkIpAcl', 'office', { ip_addresses: ['203.0.113.10'] });
    const outbound = doc('Trunk', 'pbx-out', { trunk_direction: 'outbound', ipacl_uuid: { ref: 'office' } });
    const file = await write('outbound.yaml', [
      acl,
      outbound,
      numberDoc('out-line', '14155550102', { app_id: { ref: 'pbx-out' } }),
    ]);
    const validate = await cli(['validate', '-f', file]);
    expect(validate.code).toBe(1);
    expect(validate.stdout + validate.stderr).toContain(
      'outbound.yaml:5:127  PhoneNumber/out-line  spec.app_id.ref: Trunk/pbx-out (outbound.yaml:3:62) is an outbound trunk; only inbound trunks can be attached to phone numbers',
    );

    const made = await api('POST', '/Zentrunk/IPAccessControlList/', {
      name: 'by-hand',
      ip_addresses: ['203.0.113.11'],
    });
    const trunk = await api('POST', '/Zentrunk/Trunk/', {
      name: 'by-hand-out',
      trunk_direction: 'outbound',
      ipacl_uuid: made.body.ipacl_uuid,
    });
    const trunkId = trunk.body.trunk_id as string;
    await write('outbound.yaml', [numberDoc('out-line', '14155550102', { app_id: trunkId })]);
    await handOverTo('outbound.json');
    const plan = await cli(['plan', '-f', file, '--state', 'outbound.json']);
    expect(plan.stdout).toContain(
      [
        '  # PhoneNumber/out-line cannot be changed',
        '  #   exists in the account with the same number; telform takes it over',
        `  #   app_id: Trunk ${trunkId}, as the account has it, is an outbound trunk; only inbound trunks can be attached to phone numbers`,
      ].join('\n'),
    );
  });

  it('blocks turning a trunk outbound while numbers are attached to it', async () => {
    const file = await write('turn.yaml', [uri('turn', 'turn.pbx.example.com'), inbound('turn-in', 'turn')]);
    await handOverTo('turn.json');
    expect((await cli(['apply', '-f', file, '--state', 'turn.json', '--auto-approve'])).code).toBe(0);
    const trunkId = await ledgerId('turn.json', 'Trunk/turn-in');
    expect((await api('POST', '/Number/14155550103/', { app_id: trunkId })).status).toBe(202);
    await write('turn.yaml', [
      doc('TrunkIpAcl', 'turn-acl', { ip_addresses: ['203.0.113.12'] }),
      doc('Trunk', 'turn-in', { trunk_direction: 'outbound', ipacl_uuid: { ref: 'turn-acl' } }),
    ]);
    const plan = await cli(['plan', '-f', file, '--state', 'turn.json']);
    expect(plan.stdout).toContain(
      [
        '  # Trunk/turn-in cannot be changed',
        '  #   1 phone number(s) are attached to it and only inbound trunks can carry numbers; detach or re-point them before turning it outbound',
      ].join('\n'),
    );
  });

  it('names a number the account does not own instead of creating it', async () => {
    const file = await write('ghost.yaml', [numberDoc('ghost', '+14155559999')]);
    const plan = await cli(['plan', '-f', file, '--state', 'ghost.json']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'PhoneNumber/ghost: the account does not own the number +14155559999; telform never buys or releases numbers',
    );
  });

  it('finds a number re-attached outside telform (drift exit 2) and restores it', async () => {
    const file = await write('drift.yaml', [
      uri('drift', 'drift.pbx.example.com'),
      inbound('drift-in', 'drift'),
      numberDoc('drift-line', '14155550104', { app_id: { ref: 'drift-in' } }),
    ]);
    const state = ['--state', 'drift.json'];
    await handOverTo('drift.json');
    expect((await cli(['apply', '-f', file, ...state, '--auto-approve'])).code).toBe(0);
    expect((await cli(['drift', '-f', file, ...state])).code).toBe(0);
    expect((await api('POST', '/Number/14155550104/', { app_id: '77700000000000001' })).status).toBe(202);
    const drift = await cli(['drift', '-f', file, ...state]);
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('PhoneNumber/drift-line');
    expect((await cli(['apply', '-f', file, ...state, '--auto-approve'])).code).toBe(0);
    expect(await attachedTo('14155550104')).toBe(await ledgerId('drift.json', 'Trunk/drift-in'));
    expect((await cli(['drift', '-f', file, ...state])).code).toBe(0);
  });

  it('imports every attached number with refs to its trunk, and no unattached one; the next plan is empty', async () => {
    await handOverTo('import.json');
    const run = await cli([
      'import',
      '--out',
      'imported',
      '--state',
      'import.json',
      '--kinds',
      'OriginationUri,Trunk,TrunkIpAcl,PhoneNumber',
    ]);
    expect(run.code).toBe(0);
    const numbers = await readFile(path.join(folder, 'imported/phone-number.yaml'), 'utf8');
    expect(numbers).toContain('number: "14155550100"\n  app_id: { ref: pbx-in-2 }');
    expect(numbers).not.toContain('14155550101');
    expect(numbers).not.toContain('14155550102');
    const plan = await cli(['plan', '-f', 'imported', '--state', 'import.json', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });
});
