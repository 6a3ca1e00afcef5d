import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { callApi, emulatorForCli, runCli } from './cli.js';

const credential = `apiVersion: telform/v1
kind: SipCredential
metadata:
  name: deskphone
spec:
  password: { fromEnv: DESK_PASSWORD }
`;
const acl = `apiVersion: telform/v1
kind: SipIpAcl
metadata:
  name: office
spec:
  entries:
    - ip: 203.0.113.10
`;

const started: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((emulator) => emulator.close()));
});

/** Requests other than reads the emulator received since `sinceSeq`. */
async function writesSince(emulator: RunningEmulator, sinceSeq: number): Promise<string[]> {
  return emulator.runtime.log
    .list({ type: 'request', sinceSeq })
    .filter((entry) => entry.method !== 'GET')
    .map((entry) => `${entry.method} ${entry.path}`);
}

async function setUp(): Promise<{ emulator: RunningEmulator; env: Record<string, string>; folder: string }> {
  const { emulator, env } = await emulatorForCli({ shapes: 'ideal' });
  started.push(emulator);
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-rehearse-'));
  await mkdir(path.join(folder, 'm'));
  await writeFile(path.join(folder, 'm', 'sip.yaml'), `${credential}---\n${acl}`);
  const withSecret = { ...env, DESK_PASSWORD: 'Desk-phone-secret-12!' };
  const applied = await runCli(['apply', '-f', 'm', '--auto-approve'], { cwd: folder, env: withSecret });
  expect(applied.code).toBe(0);
  return { emulator, env: withSecret, folder };
}

describe('plan --rehearse', () => {
  it("reports the API's refusal of a delete only the account knows about, before review, and writes nothing to the account", async () => {
    const { emulator, env, folder } = await setUp();
    const state = await callApi(emulator, 'GET', '/SipAuth/Credential/');
    const id = (state.body.objects as Array<{ credential_uuid: string }>)[0]?.credential_uuid;
    // Someone assigns the credential to an application by hand.
    const assigned = await callApi(emulator, 'POST', '/Application/77700000000000003/', {
      sip_auth_type: 'credential',
      credential_uuid: id,
    });
    expect(assigned.status).toBe(202);
    await writeFile(path.join(folder, 'm', 'sip.yaml'), acl);
    const before = emulator.runtime.log.list().at(-1)?.seq ?? 0;
    const run = await runCli(['plan', '-f', 'm', '--rehearse', '--format', 'markdown'], { cwd: folder, env });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('### Rehearsed on a replica of the account');
    expect(run.stdout).toContain('**The plan did not go through** on a replica of the account');
    expect(run.stdout).toContain(
      '| `SipCredential/deskphone` | blocked | the API answered 409: This credential is currently assigned to an application. Remove the assignment first by setting sip\\_auth\\_type to empty. |',
    );
    expect(await writesSince(emulator, before)).toEqual([]);
  });

  it('says a plan that works went through, with an empty plan after it, and writes nothing to the account', async () => {
    const { emulator, env, folder } = await setUp();
    await writeFile(
      path.join(folder, 'm', 'sip.yaml'),
      `${credential}---\n${acl.replace('203.0.113.10', '203.0.113.10\n    - ip: 198.51.100.20')}`,
    );
    const before = emulator.runtime.log.list().at(-1)?.seq ?? 0;
    const run = await runCli(['plan', '-f', 'm', '--rehearse', '--format', 'markdown'], { cwd: folder, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /The plan went through on a replica of the account \(snapshot taken [^)]+\): the API refused nothing and the plan after it is empty\.\n\n- Sent \d+ API requests \(the plan estimated about \d+\)\.\n- The plan after the rehearsal is empty\.\n$/,
    );
    expect(await writesSince(emulator, before)).toEqual([]);
    // The account still has one entry: the rehearsal's add went to the replica only.
    const acls = await callApi(emulator, 'GET', '/SipAuth/IpAccessControlList/');
    const office = (acls.body.objects as Array<{ name: string; entries: unknown[] }>).find(
      (item) => item.name === 'office',
    );
    expect(office?.entries).toHaveLength(1);
  });

  it('refuses formats it cannot report in', async () => {
    const { env, folder } = await setUp();
    const run = await runCli(['plan', '-f', 'm', '--rehearse', '--format', 'json'], { cwd: folder, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: --format json cannot render a rehearsal; choose text or markdown\n');
  });
});

describe('apply plan.json --rehearse', () => {
  it('applies the saved plan only after it went through on a replica', async () => {
    const { emulator, env, folder } = await setUp();
    await writeFile(
      path.join(folder, 'm', 'sip.yaml'),
      `${credential}---\n${acl.replace('203.0.113.10', '203.0.113.10\n    - ip: 198.51.100.20')}`,
    );
    expect((await runCli(['plan', '-f', 'm', '-o', 'plan.json'], { cwd: folder, env })).code).toBe(0);
    const applied = await runCli(['apply', 'plan.json', '--rehearse'], { cwd: folder, env });
    expect(applied.code).toBe(0);
    expect(applied.stderr).toMatch(/Rehearsed on a replica of the account \(snapshot taken [^)]+\): it went through\./);
    const acls = await callApi(emulator, 'GET', '/SipAuth/IpAccessControlList/');
    const office = (acls.body.objects as Array<{ name: string; entries: unknown[] }>).find(
      (item) => item.name === 'office',
    );
    expect(office?.entries).toHaveLength(2);
  });

  it('applies nothing when the API refuses part of it on the replica', async () => {
    const { emulator, env, folder } = await setUp();
    const listed = await callApi(emulator, 'GET', '/SipAuth/Credential/');
    const id = (listed.body.objects as Array<{ credential_uuid: string }>)[0]?.credential_uuid;
    await writeFile(
      path.join(folder, 'm', 'sip.yaml'),
      acl.replace('203.0.113.10', '203.0.113.10\n    - ip: 198.51.100.20'),
    );
    expect((await runCli(['plan', '-f', 'm', '-o', 'plan.json'], { cwd: folder, env })).code).toBe(0);
    // Between review and merge, someone assigns the credential to an application by hand.
    await callApi(emulator, 'POST', '/Application/77700000000000003/', {
      sip_auth_type: 'credential',
      credential_uuid: id,
    });
    const before = emulator.runtime.log.list().at(-1)?.seq ?? 0;
    const leftBefore = (await readdir(tmpdir())).filter((name) => name.startsWith('telform-rehearsal-'));
    const applied = await runCli(['apply', 'plan.json', '--rehearse'], { cwd: folder, env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      'the rehearsal of plan.json on a replica of the account did not go through (see above); nothing was applied',
    );
    // What the saved plan wants and the replica refused is still wanted after it (issue 46 item 7).
    expect(applied.stderr).toContain(
      '  the plan after the rehearsal still wants 1 change:\n    blocked SipCredential/deskphone\n',
    );
    expect(await writesSince(emulator, before)).toEqual([]);
    expect((await readdir(tmpdir())).filter((name) => name.startsWith('telform-rehearsal-'))).toEqual(leftBefore);
  });
});
