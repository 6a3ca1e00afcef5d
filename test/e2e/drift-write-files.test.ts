import { lstat, mkdir, mkdtemp, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, callApi, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

/**
 * `drift --write` and the files it rewrites (issue 33 items 6 and 28): a symlinked manifest is
 * written through its link with its permissions kept; values it cannot write in place are said to
 * be unwritten, never "Nothing to write".
 */
let harness: EmulatorForCli;
let folder: string;
const state = ['--state', 'acl.json'];
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

const linked = `apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: office
spec:
  ip_addresses:
    - 203.0.113.10
`;
const flow = `apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: lab
spec: { ip_addresses: [192.0.2.1] }
`;

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-drift-write-files-'));
  await mkdir(path.join(folder, 'shared'));
  await writeFile(path.join(folder, 'shared', 'office.yaml'), linked, { mode: 0o600 });
  await symlink(path.join('shared', 'office.yaml'), path.join(folder, 'office.yaml'));
  await writeFile(path.join(folder, 'lab.yaml'), flow);
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('drift --write and the manifest files', () => {
  it('writes a symlinked manifest through its link keeping its mode, and says which values it could not write', async () => {
    const files = ['-f', 'office.yaml', '-f', 'lab.yaml'];
    expect((await cli(['apply', ...files, ...state, '--auto-approve'])).code).toBe(0);
    const ledger = JSON.parse(await readFile(path.join(folder, 'acl.json'), 'utf8')) as {
      resources: Record<string, { id: string }>;
    };
    for (const [address, addresses] of [
      ['TrunkIpAcl/office', ['203.0.113.10', '203.0.113.11']],
      ['TrunkIpAcl/lab', ['192.0.2.1', '192.0.2.2']],
    ] as const) {
      const response = await callApi(
        harness.emulator,
        'POST',
        `/Zentrunk/IPAccessControlList/${ledger.resources[address]!.id}/`,
        { ip_addresses: addresses },
      );
      expect(response.status).toBeLessThan(300);
    }
    await advanceClock(harness.emulator, 1_000);

    const write = await cli(['drift', ...files, ...state, '--write']);
    expect(write.stdout).toBe(
      'wrote office.yaml: TrunkIpAcl/office ip_addresses\nWrote 1: 1 value changed outside telform could not be written (see the note); edit it by hand.\n',
    );
    expect(write.stderr).toContain(
      'note: lab.yaml: TrunkIpAcl/lab: its spec is not a block mapping at line 4, so it is left as it is',
    );
    expect(write.code).toBe(2);
    expect((await lstat(path.join(folder, 'office.yaml'))).isSymbolicLink()).toBe(true);
    expect(await readlink(path.join(folder, 'office.yaml'))).toBe(path.join('shared', 'office.yaml'));
    expect((await stat(path.join(folder, 'shared', 'office.yaml'))).mode & 0o777).toBe(0o600);
    expect(await readFile(path.join(folder, 'shared', 'office.yaml'), 'utf8')).toBe(`${linked}    - 203.0.113.11\n`);

    const again = await cli(['drift', '-f', 'lab.yaml', ...state, '--write']);
    expect(again.stdout).toBe(
      'Nothing written: 1 value changed outside telform could not be written (see the note); edit it by hand.\n',
    );
    expect(again.code).toBe(2);
  });
});
