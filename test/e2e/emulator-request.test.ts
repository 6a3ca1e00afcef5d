import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from './cli.js';

// `telform emulator request`: a change outside telform on this folder's embedded emulator, which the next
// command's embedded emulator sees; and TELFORM_EMULATOR_REGISTRY_DELAY, the embedded registry's review time.

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-emulator-request-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { cwd: folder, env: cleanEnv(env) });

describe('telform emulator request', () => {
  it('sends one request as the embedded account, kept in .telform/ for the next command', async () => {
    const created = await cli([
      'emulator',
      'request',
      'POST',
      'SipAuth/IpAccessControlList/',
      '{"name": "made-by-hand", "ip_addresses": ["192.0.2.1"]}',
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^HTTP 201\n\{\n {2}"api_id": /);
    const listed = await cli([
      'emulator',
      'request',
      'GET',
      '/v1/Account/MAEMULATOR0000000001/SipAuth/IpAccessControlList/',
    ]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('"name": "made-by-hand"');
  });

  it('exits 1 on an error answer, and refuses a bad method or body in one line', async () => {
    const missing = await cli(['emulator', 'request', 'GET', 'Zentrunk/Trunk/1/']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^HTTP 404\n/);
    const method = await cli(['emulator', 'request', 'PUT', 'Zentrunk/Trunk/']);
    expect([method.code, method.stderr.trim().split('\n').length]).toEqual([1, 1]);
    expect(method.stderr).toContain('the method must be one of GET, POST, DELETE, not "PUT"');
    const body = await cli(['emulator', 'request', 'POST', 'Zentrunk/Trunk/', '{oops']);
    expect(body.code).toBe(1);
    expect(body.stderr).toContain('the request body must be JSON');
  });

  it('never goes to the endpoint or account the environment names', async () => {
    const run = await cli(['emulator', 'request', 'GET', 'Application/'], {
      TELFORM_ENDPOINT: 'http://192.0.2.1:9',
      TELFORM_AUTH_ID: 'MAREAL00000000000001',
      TELFORM_AUTH_TOKEN: 'real-token',
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('"app_name": "pbx-inbound"');
  });
});

describe('TELFORM_EMULATOR_REGISTRY_DELAY', () => {
  it('sets how long the embedded registry keeps a brand under review', async () => {
    const profile = await cli(['emulator', 'request', 'GET', 'Profile/']);
    const uuid = /"profile_uuid": "([^"]+)"/.exec(profile.stdout)?.[1];
    expect(uuid).toBeDefined();
    const env = { TELFORM_EMULATOR_REGISTRY_DELAY: '0s' };
    const brand = await cli(
      [
        'emulator',
        'request',
        'POST',
        '10dlc/Brand/',
        JSON.stringify({ brand_alias: 'quick', profile_uuid: uuid, brand_type: 'STANDARD' }),
      ],
      env,
    );
    expect(brand.stdout).toMatch(/^HTTP 20\d/);
    const id = /"brand_id": "([^"]+)"/.exec(brand.stdout)?.[1];
    const read = await cli(['emulator', 'request', 'GET', `10dlc/Brand/${id}/`], env);
    expect(read.stdout).not.toContain('PROCESSING');
  });

  it('is refused by name when it is not a duration', async () => {
    const run = await cli(['emulator', 'request', 'GET', 'Application/'], { TELFORM_EMULATOR_REGISTRY_DELAY: 'soon' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('TELFORM_EMULATOR_REGISTRY_DELAY "soon" is not a duration');
  });
});
