import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServeMetrics } from '../../src/serve/metrics.js';
import { callbackTarget, startServer, type RunningServer } from '../../src/serve/server.js';
import { ServeService, type AccountWorker } from '../../src/serve/service.js';
import type { LogFields } from '../../src/serve/logger.js';
import { systemClock } from '../../src/util/clock.js';

/**
 * The HTTP side of serve: what a callback must carry to be heard, and what every other request
 * gets. The account's worker is never asked to read here (no account has been checked, and the
 * refusals come before any read), so it only lends its token.
 */

const token = 'token-of-server-test-000001';
const checks: string[] = [];
const worker: AccountWorker = {
  name: 'acme',
  authToken: token,
  check: async () => {
    checks.push('check');
    return {
      status: 'in_sync',
      drifted: [],
      pending: [],
      notes: [],
      registry: [],
      plan: [],
      requests: 0,
      rateLimited: 0,
    };
  },
  readRegistry: async () => ({ requests: 0, rateLimited: 0 }),
  applySafe: async () => ({ result: 'nothing' }),
  close: async () => undefined,
};

let server: RunningServer;
let service: ServeService;
const logs: Array<{ message: string; fields: LogFields }> = [];
const metrics = new ServeMetrics({ processMetrics: false });

beforeAll(async () => {
  const logger = {
    log: (_level: string, message: string, fields: LogFields = {}) => void logs.push({ message, fields }),
  };
  service = new ServeService([worker], {
    intervalMs: 3_600_000,
    jitter: 0,
    concurrency: 1,
    apply: 'never',
    clock: systemClock,
    logger,
    metrics,
    sinks: [],
  });
  server = await startServer(
    { service, metrics, logger, now: () => Date.now(), version: 'test', publicUrl: 'https://telform.example.com/' },
    { host: '127.0.0.1', port: 0 },
  );
});
afterAll(async () => {
  await service.stop(1_000);
  await server.close();
});

function signed(url: string, nonce: string, key = token): Record<string, string> {
  const signature = createHmac('sha256', key).update(`${url}${nonce}`).digest('base64');
  return { 'x-plivo-signature-v2': signature, 'x-plivo-signature-v2-nonce': nonce, 'content-type': 'application/json' };
}

const post = (path: string, headers: Record<string, string>, body: string) =>
  fetch(`${server.url}${path}`, { method: 'POST', headers, body });
const payload = JSON.stringify({ type: 'campaign', campaign_id: 'CAB12CD', status: 'expired' });

describe('serve HTTP server', () => {
  it('hears a callback signed for its public URL once, and refuses a replay, a bad signature, an unknown account and a huge body', async () => {
    const url = 'https://telform.example.com/callbacks/acme';
    const first = await post('/callbacks/acme?tag=x', signed(url, 'n-1'), payload);
    expect([first.status, await first.json()]).toEqual([200, { status: 'received' }]);
    expect((await post('/callbacks/acme', signed(url, 'n-1'), payload)).status).toBe(409);
    expect((await post('/callbacks/acme', signed(url, 'n-2', 'wrong-token'), payload)).status).toBe(403);
    // Signed for the address it listens on, not the public one: refused.
    expect((await post('/callbacks/acme', signed(`${server.url}/callbacks/acme`, 'n-3'), payload)).status).toBe(403);
    expect(
      (await post('/callbacks/nobody', signed('https://telform.example.com/callbacks/nobody', 'n-4'), payload)).status,
    ).toBe(404);
    expect((await post('/callbacks/acme', signed(url, 'n-5'), 'x'.repeat(70_000))).status).toBe(413);
    expect(
      (await post('/callbacks/acme', signed(url, 'n-6'), JSON.stringify({ type: 'campaign', campaign_id: '../../x' })))
        .status,
    ).toBe(400);
    expect((await fetch(`${server.url}/callbacks/acme`, { method: 'PUT' })).status).toBe(405);
    expect(logs.filter((line) => line.message === 'callback refused').map((line) => line.fields.result)).toEqual([
      'replayed',
      'bad_signature',
      'bad_signature',
      'unknown_account',
      'too_large',
      'unreadable',
      'bad_method',
    ]);
    // Before the account's first check, the accepted callback asked for one.
    expect(logs.find((line) => line.message === 'callback received')?.fields).toMatchObject({
      account: 'acme',
      kind: 'Campaign',
      id: 'CAB12CD',
      outcome: 'check',
    });
    const text = await metrics.render();
    expect(text).toContain('telform_callbacks_total{result="accepted"} 1');
    expect(text).toContain('telform_callbacks_total{result="bad_signature"} 2');
  });

  it('takes a callback at the one URL of every account, signed by the account that manages the object', async () => {
    const check = {
      status: 'in_sync' as const,
      drifted: [],
      pending: [],
      notes: [],
      plan: [],
      requests: 0,
      rateLimited: 0,
    };
    service.fleet.recordCheck(
      'acme',
      { ...check, registry: [{ address: 'Campaign/spring', kind: 'Campaign', id: 'CSPRING', status: 'ACTIVE' }] },
      service.fleet.beginObservation(),
      'start',
    );
    const url = 'https://telform.example.com/callbacks';
    const body = JSON.stringify({ type: 'campaign', campaign_id: 'CSPRING', status: 'expired' });
    expect((await post('/callbacks', signed(url, 'm-1'), body)).status).toBe(200);
    expect(logs.at(-1)).toMatchObject({
      message: 'callback received',
      fields: { account: 'acme', id: 'CSPRING', outcome: 'read' },
    });
    expect((await post('/callbacks/', signed(url, 'm-2', 'another-accounts-token'), body)).status).toBe(403);
    const unknown = await post(
      '/callbacks',
      signed(url, 'm-3'),
      JSON.stringify({ type: 'campaign', campaign_id: 'CNOBODY' }),
    );
    expect([unknown.status, await unknown.json()]).toEqual([
      404,
      { error: 'no account of this serve manages Campaign CNOBODY' },
    ]);
  });

  it('checks the signature first: an unsigned or forged callback gets the same answer whether or not serve manages the object (issue 33 item 34)', async () => {
    const url = 'https://telform.example.com/callbacks';
    const managed = JSON.stringify({ type: 'campaign', campaign_id: 'CSPRING', status: 'expired' });
    const unmanaged = JSON.stringify({ type: 'campaign', campaign_id: 'CNOBODY', status: 'expired' });
    const answers = [];
    for (const [headers, body] of [
      [{ 'content-type': 'application/json' }, managed],
      [{ 'content-type': 'application/json' }, unmanaged],
      [signed(url, 'e-1', 'forged-token'), managed],
      [signed(url, 'e-2', 'forged-token'), unmanaged],
    ] as const) {
      const response = await post('/callbacks', headers, body);
      answers.push([response.status, await response.json()]);
    }
    expect(answers).toEqual([
      [403, { error: 'no signature (X-Plivo-Signature-V2 and its nonce are required)' }],
      [403, { error: 'no signature (X-Plivo-Signature-V2 and its nonce are required)' }],
      [403, { error: 'the signature matches no account of this serve (wrong token, altered URL, or forged)' }],
      [403, { error: 'the signature matches no account of this serve (wrong token, altered URL, or forged)' }],
    ]);
  });

  it('serves probes and pages read-only, with no script allowed', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    expect((await fetch(`${server.url}/`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${server.url}/accounts/acme`)).status).toBe(200);
    expect((await fetch(`${server.url}/accounts/nobody`)).status).toBe(404);
    expect((await fetch(`${server.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });

  it('says which address it cannot listen on, in one sentence', async () => {
    const port = Number(new URL(server.url).port);
    const taken = startServer(
      { service, metrics, logger: { log: () => undefined }, now: () => Date.now(), version: 'test' },
      { host: '127.0.0.1', port },
    );
    await expect(taken).rejects.toMatchObject({
      code: 'serve_listen_failed',
      message: `cannot listen on 127.0.0.1:${port}: the port is in use; choose another with --listen HOST:PORT`,
    });
  });

  it('reads which object a callback names, and only an id of a plausible form', () => {
    const target = (fields: Record<string, string>) => callbackTarget(new URLSearchParams(fields));
    expect(target({ type: 'brand', brand_id: 'BQCKPRV', status: 'registered' })).toEqual({
      kind: 'Brand',
      id: 'BQCKPRV',
      status: 'registered',
    });
    expect(target({ type: 'number_linking', campaign_id: 'C1', number: '+14155550100' })).toEqual({
      kind: 'PhoneNumber',
      id: '14155550100',
      status: undefined,
    });
    expect(target({ brand_id: 'B1', campaign_id: 'C1' })?.kind).toBe('Campaign');
    expect(target({ type: 'brand', brand_id: 'B1/../x' })).toBeUndefined();
    expect(target({ type: 'other' })).toBeUndefined();
  });
});
