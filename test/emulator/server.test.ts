import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

let emulator: RunningEmulator;
const basic = `Basic ${Buffer.from(`${defaultAccount.authId}:${defaultAccount.authToken}`).toString('base64')}`;

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

describe('emulator server', () => {
  it('listens on loopback with an ephemeral port', () => {
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers 401 with the error body when credentials are missing or wrong', async () => {
    const path = `${emulator.url}/v1/Account/${defaultAccount.authId}/SipAuth/Credential/`;
    const missing = await fetch(path);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: 'Authentication failed' });
    const wrong = await fetch(path, {
      headers: { authorization: `Basic ${Buffer.from(`${defaultAccount.authId}:nope`).toString('base64')}` },
    });
    expect(wrong.status).toBe(401);
  });

  it('answers 404 for an unknown path after authenticating', async () => {
    const response = await fetch(`${emulator.url}/v1/Account/${defaultAccount.authId}/NoSuchThing/`, {
      headers: { authorization: basic },
    });
    expect(response.status).toBe(404);
    const body = (await response.json()) as { api_id: string; error: string };
    expect(body.error).toBe('not found');
    expect(body.api_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the admin health route', async () => {
    const response = await fetch(`${emulator.url}/__emulator/health/`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', accounts: [defaultAccount.authId] });
  });
});
