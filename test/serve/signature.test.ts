import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { NonceMemory, verifyCallbackSignature } from '../../src/serve/signature.js';

/**
 * The signature check against callbacks the emulator really sends (it signs them as production
 * does), so the check is not only consistent with itself.
 */
let emulator: RunningEmulator;
let receiverUrl: string;
const received: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
const receiver = createServer((request, response) => {
  received.push({ url: request.url ?? '/', headers: request.headers });
  response.end('ok');
});

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  emulator = await startEmulator({ registryDelayMs: 1_000 });
  const authorization = `Basic ${Buffer.from(`${defaultAccount.authId}:${defaultAccount.authToken}`).toString('base64')}`;
  const response = await fetch(`${emulator.url}/v1/Account/${defaultAccount.authId}/10dlc/Brand/`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({
      profile_uuid: '5eed0000-0000-4000-8000-000000000002',
      brand_alias: 'bluebird',
      brand_type: 'STANDARD',
      url: `${receiverUrl}/callbacks/acme?tag=1`,
    }),
  });
  expect(response.status).toBe(200);
  for (let waited = 0; received.length === 0 && waited < 5_000; waited += 20)
    await new Promise((resolve) => setTimeout(resolve, 20));
});
afterAll(async () => {
  await emulator?.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('verifyCallbackSignature', () => {
  it("accepts the emulator's signed callback with the account's token, and refuses it with any other token or URL", () => {
    const callback = received[0];
    expect(callback).toBeDefined();
    const url = `${receiverUrl}${callback?.url}`;
    const headers = callback?.headers ?? {};
    expect(verifyCallbackSignature({ url, headers }, defaultAccount.authToken)).toEqual({
      ok: true,
      nonce: headers['x-plivo-signature-v2-nonce'],
    });
    // The query string is not signed: another one still verifies.
    expect(verifyCallbackSignature({ url: url.replace('tag=1', 'tag=2'), headers }, defaultAccount.authToken).ok).toBe(
      true,
    );
    expect(verifyCallbackSignature({ url, headers }, 'another-token')).toEqual({
      ok: false,
      reason: 'the signature does not match (wrong token, altered URL, or forged)',
    });
    expect(verifyCallbackSignature({ url: url.replace('/acme', '/other'), headers }, defaultAccount.authToken).ok).toBe(
      false,
    );
    expect(
      verifyCallbackSignature(
        { url, headers: { ...headers, 'x-plivo-signature-v2-nonce': 'f00' } },
        defaultAccount.authToken,
      ).ok,
    ).toBe(false);
  });

  it('refuses a callback without a signature or without its nonce, and a signature that is not even base64 of the right length', () => {
    const url = `${receiverUrl}/callbacks/acme`;
    const reason = 'no signature (X-Plivo-Signature-V2 and its nonce are required)';
    expect(verifyCallbackSignature({ url, headers: {} }, defaultAccount.authToken)).toEqual({ ok: false, reason });
    expect(
      verifyCallbackSignature({ url, headers: { 'x-plivo-signature-v2': 'abc' } }, defaultAccount.authToken),
    ).toEqual({ ok: false, reason });
    expect(
      verifyCallbackSignature(
        { url, headers: { 'x-plivo-signature-v2': '!!', 'x-plivo-signature-v2-nonce': '1' } },
        defaultAccount.authToken,
      ).ok,
    ).toBe(false);
  });
});

describe('NonceMemory', () => {
  it('admits a nonce once and forgets the oldest past its limit', () => {
    const memory = new NonceMemory(2);
    expect([
      memory.admit('a'),
      memory.admit('a'),
      memory.admit('b'),
      memory.admit('c'),
      memory.admit('a'),
      memory.admit('c'),
    ]).toEqual([true, false, true, true, true, false]);
  });
});
