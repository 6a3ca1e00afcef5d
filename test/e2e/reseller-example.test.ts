import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { cleanEnv, runCli } from './cli.js';
import { examplesDir } from './examples.js';

/**
 * examples/reseller: three customers from one shared folder, each with its values in the accounts
 * file, validated offline, rolled out in waves against an emulator serving the three accounts,
 * each converging with its own values; `-f examples/` does not read it (the other examples' tests).
 */

const customers = ['acme', 'globex', 'initech'];
const authId = (index: number) => `MARESELLER${String(index + 1).padStart(10, '0')}`;
const token = (index: number) => `reseller-token-${index + 1}-0000000000000000000`;

let emulator: RunningEmulator;
let folder: string;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = await startEmulator({
    accounts: customers.map((_, index) => ({ authId: authId(index), authToken: token(index) })),
    registryDelayMs: 200,
  });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-reseller-'));
  await cp(path.join(examplesDir, 'reseller'), path.join(folder, 'reseller'), { recursive: true });
  const credentials: Record<string, string> = {};
  customers.forEach((name, index) => {
    credentials[`${name.toUpperCase()}_AUTH_ID`] = authId(index);
    credentials[`${name.toUpperCase()}_AUTH_TOKEN`] = token(index);
  });
  env = cleanEnv(credentials);
});

afterAll(async () => {
  await emulator.close();
  await rm(folder, { recursive: true, force: true });
});

const cli = (args: string[]) => runCli(args, { cwd: folder, env });
const accountsFile = path.join('reseller', 'telform-accounts.yaml');

async function aclAddresses(index: number): Promise<Record<string, unknown>> {
  const authorization = `Basic ${Buffer.from(`${authId(index)}:${token(index)}`).toString('base64')}`;
  const response = await fetch(`${emulator.url}/v1/Account/${authId(index)}/Zentrunk/IPAccessControlList/`, {
    headers: { authorization },
  });
  const objects = ((await response.json()) as { objects: Array<{ name: string; ip_addresses: unknown }> }).objects;
  return Object.fromEntries(objects.map((object) => [object.name, object.ip_addresses]));
}

describe('examples/reseller', () => {
  it('validates every customer with its own values', async () => {
    expect(await cli(['validate', '--accounts', accountsFile])).toEqual({
      code: 0,
      stdout: 'valid: 3 accounts, 19 resources\n',
      stderr: '',
    });
  });

  it('rolls out in waves and converges each customer with its own values', async () => {
    const apply = await cli([
      'apply',
      '--accounts',
      accountsFile,
      '--endpoint',
      emulator.url,
      '--auto-approve',
      '--waves',
      '1,100%',
      '--wait',
      '1m',
    ]);
    expect(apply.code, `${apply.stdout}\n${apply.stderr}`).toBe(0);
    expect(apply.stdout).toContain('Rollout of 2 waves complete.');
    expect(await aclAddresses(0)).toEqual({ 'customer-pbx': ['203.0.113.10', '203.0.113.11'] });
    expect(await aclAddresses(1)).toEqual({
      'customer-pbx': ['198.51.100.20'],
      'globex-backup-pbx': ['198.51.100.21'],
    });
    expect(await aclAddresses(2)).toEqual({ 'customer-pbx': ['192.0.2.30', '192.0.2.31', '192.0.2.32'] });
    const plan = await cli(['plan', '--accounts', accountsFile, '--endpoint', emulator.url, '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
  });
});
