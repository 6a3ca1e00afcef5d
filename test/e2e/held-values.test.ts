import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, type EmulatorForCli } from './cli.js';

// A value rule broken in a NEW manifest (nothing in the account holds it, and no state says it does):
// validate reports it as an error, and plan and apply refuse it, naming file:line:col and the rule,
// before any write.
let harness: EmulatorForCli;
let folder: string;
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

const acl = [
  'apiVersion: telform/v1',
  'kind: TrunkIpAcl',
  'metadata:',
  '  name: pbx',
  'spec:',
  '  ip_addresses: [203.0.113.1, 999.0.0.1]',
  '',
].join('\n');

beforeAll(async () => {
  harness = await emulatorForCli({});
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-held-'));
  await writeFile(path.join(folder, 'acl.yaml'), acl);
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('a held value in a manifest with no live counterpart', () => {
  it('is an error for validate, and refused by plan and apply before any request', async () => {
    const validate = await cli(['validate', '-f', 'acl.yaml', '--state', 'held.json']);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain('acl.yaml:6:31  TrunkIpAcl/pbx  spec.ip_addresses[1]: must be an IPv4 address');
    expect(validate.stdout).toContain('(no state at held.json: a new object must meet this rule;');

    const plan = await cli(['plan', '-f', 'acl.yaml', '--state', 'held.json']);
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(
      'refused: acl.yaml:6:31: TrunkIpAcl/pbx would be created, which must meet the create rules: spec.ip_addresses must be an IPv4 address',
    );

    const since = harness.emulator.runtime.log.list({ type: 'request' }).length;
    const apply = await cli(['apply', '-f', 'acl.yaml', '--state', 'held.json', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'refused: acl.yaml:6:31: TrunkIpAcl/pbx would be created, which must meet the create rules: spec.ip_addresses must be an IPv4 address',
    );
    const writes = harness.emulator.runtime.log
      .list({ type: 'request' })
      .slice(since)
      .filter((entry) => entry.method !== 'GET');
    expect(writes).toEqual([]);
  });
});
