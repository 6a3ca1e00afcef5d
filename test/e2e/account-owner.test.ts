// One owner per account, through the built CLI: the marker, claim and release, import that never doubles.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { demoSecrets, examplesDir } from './examples.js';

interface World {
  harness: EmulatorForCli;
  folder: string;
  cli(args: string[]): ReturnType<typeof runCli>;
  /** Requests other than GET the emulator has received so far. */
  writes(): Array<{ method: string; path: string }>;
}

async function world(): Promise<World> {
  const harness = await emulatorForCli({ registryDelayMs: 300 });
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-owner-'));
  await cp(examplesDir, path.join(folder, 'examples'), { recursive: true });
  const env = { ...harness.env, ...demoSecrets() };
  return {
    harness,
    folder,
    cli: (args) => runCli(args, { cwd: folder, env }),
    writes: () =>
      harness.emulator.runtime.log
        .list({ type: 'request' })
        .filter((entry) => entry.method !== 'GET')
        .map((entry) => ({ method: entry.method, path: entry.path })),
  };
}

async function lineageOf(folder: string, file: string): Promise<string> {
  return (JSON.parse(await readFile(path.join(folder, file), 'utf8')) as { lineage: string }).lineage;
}

/** The account's SIP IP ACLs as the API lists them (the marker among them). */
async function sipAclNames(harness: EmulatorForCli): Promise<string[]> {
  const page = await callApi(harness.emulator, 'GET', '/SipAuth/IpAccessControlList/?limit=20');
  return (page.body.objects as Array<{ name: string }>).map((acl) => acl.name).sort();
}

const converged =
  /Apply complete: \d+ created, 3 updated, 0 replaced, 0 deleted, 0 adopted\. Pending: 0\. Blocked: 0\. Failed: 0\./;

describe('one owner per account', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => {
    await w.harness.emulator.close();
    await rm(w.folder, { recursive: true, force: true });
  });

  it('fences the account from its first apply: a second fresh ledger plans no adoption, names the owner and writes nothing; reads still work', async () => {
    const plan0 = await w.cli(['--state', 'owner.json', 'plan', '-f', 'examples/']);
    expect(plan0.code).toBe(0);
    const claimNote =
      'note: this apply claims account MAEMULATOR0000000001 for the new state owner.json: nobody owns it yet, so its first write is an ownership marker; from then on every other state may only read the account (hand-over: telform state release and telform state claim)\n';
    expect(plan0.stderr).toBe(claimNote);
    expect(w.writes()).toEqual([]);
    const applied = await w.cli([
      '--state',
      'owner.json',
      'apply',
      '-f',
      'examples/',
      '--auto-approve',
      '--wait',
      '1m',
    ]);
    expect(applied.stdout).toMatch(converged);
    expect(applied.stderr.startsWith(claimNote)).toBe(true);
    const owner = await lineageOf(w.folder, 'owner.json');
    // The fence is the apply's first write, and the claim is recorded in the ledger.
    expect(w.writes()[0]).toEqual({
      method: 'POST',
      path: '/v1/Account/MAEMULATOR0000000001/SipAuth/IpAccessControlList/',
    });
    expect(await sipAclNames(w.harness)).toContain(`telform-owner:${owner}`);
    expect(JSON.parse(await readFile(path.join(w.folder, 'owner.json'), 'utf8'))).toMatchObject({
      ownership: [{ action: 'claim' }],
    });
    // The owner's next apply claims nothing again.
    expect((await w.cli(['--state', 'owner.json', 'plan', '-f', 'examples/'])).stderr).toBe('');
    expect((await w.cli(['--state', 'owner.json', 'state', 'claim'])).stdout).toBe(
      `the state owner.json (lineage ${owner}) already owns account MAEMULATOR0000000001\n`,
    );

    const before = w.writes().length;
    const refusal = `refused: account MAEMULATOR0000000001 is owned by the telform ledger of lineage ${owner}, not by a new state laptop.json; drift and telform state list still read it; to hand it over, run telform state release with the owner's state and then telform state claim with this one, or, if the owner's state is lost, telform state claim --take-over ${owner}\n`;
    const plan = await w.cli(['--state', 'laptop.json', 'plan', '-f', 'examples/']);
    expect(plan).toMatchObject({ code: 1, stdout: '', stderr: `error: plan ${refusal}` });
    const apply = await w.cli(['--state', 'laptop.json', 'apply', '-f', 'examples/', '--auto-approve']);
    expect(apply).toMatchObject({ code: 1, stdout: '', stderr: `error: apply ${refusal}` });
    // The refused import asks who owns the account (the SIP IP ACL list, where the markers are) and reads
    // no other list: an owned account is refused before its objects are read.
    const requestsBefore = w.harness.emulator.runtime.log.list({ type: 'request' }).length;
    const imported = await w.cli(['--state', 'laptop.json', 'import', '--out', 'laptop-import']);
    expect(
      w.harness.emulator.runtime.log
        .list({ type: 'request' })
        .slice(requestsBefore)
        .map((entry) => `${entry.method} ${entry.path.replace(/\?.*/, '')}`),
    ).toEqual(['GET /v1/Account/MAEMULATOR0000000001/SipAuth/IpAccessControlList/']);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toContain(
      `error: import refused: account MAEMULATOR0000000001 is owned by the telform ledger of lineage ${owner}`,
    );
    const drift = await w.cli(['--state', 'laptop.json', 'drift', '-f', 'examples/']);
    expect(drift.code).toBe(2);
    expect(drift.stderr).toContain(
      `note: account MAEMULATOR0000000001 is owned by the telform ledger of lineage ${owner}; the state laptop.json only reads it\n`,
    );
    expect(w.writes().slice(before)).toEqual([]);
    // A claim without naming the owner is refused too.
    const grab = await w.cli(['--state', 'laptop.json', 'state', 'claim']);
    expect(grab).toMatchObject({
      code: 1,
      stderr: `error: account MAEMULATOR0000000001 is owned by the telform ledger of lineage ${owner}; to take it from that ledger, run telform state release with it first, or, if it is lost, telform state claim --take-over ${owner}\n`,
    });
    expect(w.writes().slice(before)).toEqual([]);

    // The owner goes on as before.
    expect((await w.cli(['--state', 'owner.json', 'plan', '-f', 'examples/', '--detailed-exitcode'])).code).toBe(0);
  }, 240_000);

  it('never shows the marker in plans, imports or unmanaged lists, and keeps it through --prune-unmanaged', async () => {
    const owner = await lineageOf(w.folder, 'owner.json');
    const shown = await w.cli(['--state', 'owner.json', 'plan', '-f', 'examples/', '--show-unmanaged']);
    const json = await w.cli([
      '--state',
      'owner.json',
      'plan',
      '-f',
      'examples/',
      '--show-unmanaged',
      '--format',
      'json',
    ]);
    const drift = await w.cli(['--state', 'owner.json', 'drift', '-f', 'examples/', '--format', 'json']);
    const imported = await w.cli(['--state', 'owner.json', 'import', '--kinds', 'SipIpAcl', '--out', 'acls']);
    expect(imported).toMatchObject({ code: 0, stderr: 'read 2 SipIpAcl\n' });
    for (const run of [shown, json, drift, imported]) expect(run.stdout + run.stderr).not.toContain('telform-owner');
    // Every SIP IP ACL is owned: nothing to import, and no folder written.
    expect(imported.stdout).toMatch(
      /^Imported 0 resources into acls \(0 files\) and recorded them in the state\.\nSkipped 2 objects /,
    );
    const stray = await callApi(w.harness.emulator, 'POST', '/SipAuth/IpAccessControlList/', { name: 'stray' });
    const pruned = await w.cli([
      '--state',
      'owner.json',
      'apply',
      '-f',
      'examples/',
      '--auto-approve',
      '--prune-unmanaged',
      'SipIpAcl',
    ]);
    expect(pruned.code).toBe(0);
    expect(pruned.stderr).toContain(`deleted  SipIpAcl/#${stray.body.ip_acl_uuid as string}\n`);
    expect(pruned.stdout + pruned.stderr).not.toContain('telform-owner');
    expect(await sipAclNames(w.harness)).toContain(`telform-owner:${owner}`);
    expect(await sipAclNames(w.harness)).not.toContain('stray');
  }, 240_000);

  it('refuses a manifest that names a marker', async () => {
    await writeFile(
      path.join(w.folder, 'marker.yaml'),
      'apiVersion: telform/v1\nkind: SipIpAcl\nmetadata:\n  name: sneaky\nspec:\n  name: "telform-owner:0000"\n',
    );
    const run = await w.cli(['validate', '-f', 'marker.yaml']);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('marker.yaml:6:9');
    expect(run.stdout + run.stderr).toContain(
      `names starting "telform-owner:" are telform's ownership markers; a manifest cannot manage one`,
    );
  });

  it('hands the account over with release and claim; a fresh ledger then adopts everything and replaces nothing', async () => {
    const owner = await lineageOf(w.folder, 'owner.json');
    const released = await w.cli(['--state', 'owner.json', 'state', 'release']);
    expect(released).toMatchObject({
      code: 0,
      stdout:
        'the state owner.json released account MAEMULATOR0000000001; another state may claim it (telform state claim), and this one refuses to write to it until it claims it again\n',
    });
    expect(await sipAclNames(w.harness)).not.toContain(`telform-owner:${owner}`);
    const after = await w.cli(['--state', 'owner.json', 'apply', '-f', 'examples/', '--auto-approve']);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(
      /^error: apply refused: the state owner\.json released account MAEMULATOR0000000001 \(telform state release, \S+Z\) and no longer writes to it; run telform state claim to take it back\n$/,
    );

    const claimed = await w.cli(['--state', 'fresh.json', 'state', 'claim']);
    expect(claimed.code).toBe(0);
    const fresh = await lineageOf(w.folder, 'fresh.json');
    expect(await sipAclNames(w.harness)).toContain(`telform-owner:${fresh}`);
    const plan = await w.cli(['--state', 'fresh.json', 'plan', '-f', 'examples/', '--format', 'json']);
    expect(plan.code).toBe(0);
    const changes = (
      JSON.parse(plan.stdout) as {
        changes: Array<{ address: string; action: string; patch: unknown[]; reasons: string[] }>;
      }
    ).changes;
    const ledger = JSON.parse(await readFile(path.join(w.folder, 'owner.json'), 'utf8')) as {
      resources: Record<string, unknown>;
    };
    // Adopted, each one; those with a secret also set it once (a fresh ledger holds no fingerprint to compare).
    expect(
      changes.filter(
        (change) =>
          change.action !== 'adopt' &&
          !(
            change.action === 'update' &&
            change.patch.length === 0 &&
            change.reasons[0] === 'exists in the account with the same name; telform takes it over'
          ),
      ),
    ).toEqual([]);
    expect(changes.map((change) => change.address).sort()).toEqual(Object.keys(ledger.resources).sort());
    const adopted = await w.cli(['--state', 'fresh.json', 'apply', '-f', 'examples/', '--auto-approve']);
    expect(adopted.stdout).toMatch(
      /Apply complete: 0 created, \d+ updated, 0 replaced, 0 deleted, \d+ adopted\. Pending: 0\. Blocked: 0\. Failed: 0\./,
    );
    expect((await w.cli(['--state', 'fresh.json', 'plan', '-f', 'examples/', '--detailed-exitcode'])).code).toBe(0);

    // The claim is recorded in each ledger.
    const history = (file: string) =>
      readFile(path.join(w.folder, file), 'utf8').then((text) =>
        (JSON.parse(text) as { ownership: Array<{ action: string }> }).ownership.map((event) => event.action),
      );
    expect(await history('owner.json')).toEqual(['claim', 'release']);
    expect(await history('fresh.json')).toEqual(['claim']);
    expect((await w.cli(['--state', 'owner.json', 'state', 'list'])).stderr).toMatch(
      new RegExp(`\\nlineage ${owner}; released the account at \\S+Z\\n$`),
    );
  }, 240_000);

  it('takes an account from a lost ledger only when --take-over names it', async () => {
    const fresh = await lineageOf(w.folder, 'fresh.json');
    const wrong = await w.cli(['--state', 'rescue.json', 'state', 'claim', '--take-over', 'not-the-owner']);
    expect(wrong).toMatchObject({
      code: 1,
      stderr: `error: --take-over not-the-owner does not name the owner of account MAEMULATOR0000000001: it is owned by the telform ledger of lineage ${fresh}\n`,
    });
    const taken = await w.cli(['--state', 'rescue.json', 'state', 'claim', '--take-over', fresh]);
    const rescue = await lineageOf(w.folder, 'rescue.json');
    expect(taken).toMatchObject({
      code: 0,
      stdout: `the state rescue.json (lineage ${rescue}) now owns account MAEMULATOR0000000001, taken from the ledger of lineage ${fresh}; other ledgers may only read it\n`,
    });
    const names = await sipAclNames(w.harness);
    expect(names.filter((name) => name.startsWith('telform-owner:'))).toEqual([`telform-owner:${rescue}`]);
    expect((await w.cli(['--state', 'fresh.json', 'apply', '-f', 'examples/', '--auto-approve'])).stderr).toContain(
      `error: apply refused: account MAEMULATOR0000000001 is owned by the telform ledger of lineage ${rescue}, not by the state fresh.json (lineage ${fresh})`,
    );
  }, 240_000);
});

describe('import into a ledger that already manages the account', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => {
    await w.harness.emulator.close();
    await rm(w.folder, { recursive: true, force: true });
  });

  it('records nothing twice and rewrites no entry; the next apply sends no delete', async () => {
    expect((await w.cli(['apply', '-f', 'examples/', '--auto-approve', '--wait', '1m'])).stdout).toMatch(converged);
    const before = JSON.parse(await readFile(path.join(w.folder, 'telform.state.json'), 'utf8')) as {
      resources: Record<string, { id: string }>;
    };
    const imported = await w.cli(['import', '--out', 'imported']);
    expect(imported.code).toBe(0);
    const skipped = Object.keys(before.resources).sort();
    expect(imported.stdout).toContain(
      `Skipped ${skipped.length} objects the state already manages (its manifests keep them):\n${skipped.map((address) => `  ${address}`).join('\n')}\n`,
    );
    const after = JSON.parse(await readFile(path.join(w.folder, 'telform.state.json'), 'utf8')) as {
      resources: Record<string, { kind: string; id: string }>;
    };
    for (const [address, entry] of Object.entries(before.resources)) expect(after.resources[address]).toEqual(entry);
    const ids = Object.values(after.resources).map((entry) => `${entry.kind}:${entry.id}`);
    expect(new Set(ids).size).toBe(ids.length);
    const added = Object.keys(after.resources).filter((address) => !(address in before.resources));
    expect(added.length).toBeGreaterThan(0);
    expect(imported.stdout).toMatch(new RegExp(`^Imported ${added.length} resources into imported `));

    const start = w.writes().length;
    const apply = await w.cli(['apply', '-f', 'examples/', '-f', 'imported/', '--auto-approve']);
    expect(apply.code).toBe(0);
    expect(
      w
        .writes()
        .slice(start)
        .filter((write) => write.method === 'DELETE'),
    ).toEqual([]);
    expect((await w.cli(['plan', '-f', 'examples/', '-f', 'imported/', '--detailed-exitcode'])).code).toBe(0);
    // Again: everything is owned now, so nothing is imported.
    const again = await w.cli(['import', '--out', 'imported-again']);
    expect(again.stdout).toMatch(
      /^Imported 0 resources into imported-again \(0 files\) and recorded them in the state\.\nSkipped \d+ objects/,
    );
  }, 240_000);
});

describe('import into an account nobody owns', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(async () => {
    await w.harness.emulator.close();
    await rm(w.folder, { recursive: true, force: true });
  });

  it('claims it before recording anything, and another state then may not import', async () => {
    await callApi(w.harness.emulator, 'POST', '/SipAuth/IpAccessControlList/', { name: 'by-hand' });
    const start = w.writes().length;
    const imported = await w.cli(['--state', 'imported.json', 'import', '--kinds', 'SipIpAcl', '--out', 'acls']);
    expect(imported).toMatchObject({ code: 0, stderr: 'read 1 SipIpAcl\n' });
    const lineage = await lineageOf(w.folder, 'imported.json');
    expect(w.writes().slice(start)).toEqual([
      { method: 'POST', path: '/v1/Account/MAEMULATOR0000000001/SipAuth/IpAccessControlList/' },
    ]);
    expect(await sipAclNames(w.harness)).toEqual(['by-hand', `telform-owner:${lineage}`]);
    expect(JSON.parse(await readFile(path.join(w.folder, 'imported.json'), 'utf8'))).toMatchObject({
      ownership: [{ action: 'claim' }],
      resources: { 'SipIpAcl/by-hand': {} },
    });
    const other = await w.cli(['--state', 'other.json', 'import', '--kinds', 'SipIpAcl', '--out', 'other']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain(
      `error: import refused: account MAEMULATOR0000000001 is owned by the telform ledger of lineage ${lineage}, not by a new state other.json;`,
    );
  }, 120_000);
});
