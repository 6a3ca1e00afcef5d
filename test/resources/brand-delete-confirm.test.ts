import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { TelformError } from '../../src/util/errors.js';
import { brandLive } from '../../src/resources/brand.js';
import { campaignLive } from '../../src/resources/campaign-live.js';
import { InstantClock } from '../support/clock.js';
import { liveContext } from '../../src/resources/live-side.js';

/**
 * Production may refuse a brand delete with a 200 whose `message` says why,
 * which the emulator does not do (it answers 400), so a small stand-in server answers the way
 * production may: the delete is judged by reading the object back (docs/commands.md, connecting to the API).
 */

type Handler = (method: string, path: string) => { status: number; body?: unknown };

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: Handler): Promise<{ client: ApiClient; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const method = request.method ?? 'GET';
    const path = (request.url ?? '').replace(/^\/v1\/Account\/MATEST0000000000001/, '').replace(/\?.*$/, '');
    seen.push(`${method} ${path}`);
    request.resume();
    request.on('end', () => {
      const { status, body } = handler(method, path);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new ApiClient({
    baseUrl: `http://127.0.0.1:${port}`,
    credentials: { authId: 'MATEST0000000000001', authToken: 'test-token' },
    clock: new InstantClock(),
  });
  return { client, seen };
}

const brandRecord = {
  brand_id: 'BFAKE01',
  brand_alias: 'acme',
  brand_type: 'STANDARD',
  profile_uuid: 'p',
  registration_status: 'COMPLETED',
};

describe('deletes confirmed by reading back', () => {
  it('reports a brand delete answered 200 whose brand is still there, with the API message', async () => {
    const refusal = 'Brand cannot be deleted as it has active campaigns';
    const { client, seen } = await serve((method) =>
      method === 'DELETE'
        ? { status: 200, body: { api_id: 'a', brand_id: 'BFAKE01', message: refusal } }
        : { status: 200, body: { api_id: 'b', brand: brandRecord } },
    );
    const error = await brandLive.delete(liveContext(client), 'BFAKE01', undefined).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    await client.close();
    expect(error).toBeInstanceOf(TelformError);
    expect((error as TelformError).code).toBe('delete_refused');
    expect((error as Error).message).toBe(
      `Brand BFAKE01 was not deleted: it is still there after the API answered "${refusal}"`,
    );
    expect(seen).toEqual(['DELETE /10dlc/Brand/BFAKE01/', 'GET /10dlc/Brand/BFAKE01/']);
  });

  it('takes a 200 delete whose brand reads back 404 as done', async () => {
    const { client, seen } = await serve((method) =>
      method === 'DELETE'
        ? { status: 200, body: { api_id: 'a', brand_id: 'BFAKE01', message: 'Brand Deactivated' } }
        : { status: 404, body: { api_id: 'b', error: 'not found' } },
    );
    await brandLive.delete(liveContext(client), 'BFAKE01', undefined);
    await client.close();
    expect(seen).toEqual(['DELETE /10dlc/Brand/BFAKE01/', 'GET /10dlc/Brand/BFAKE01/']);
  });

  it('confirms a campaign delete the same way', async () => {
    const { client } = await serve((method) =>
      method === 'DELETE'
        ? { status: 200, body: { api_id: 'a', campaign_id: 'CFAKE01', message: 'Campaign cannot be deleted now' } }
        : { status: 200, body: { api_id: 'b', campaign: { campaign_id: 'CFAKE01', registration_status: 'ACTIVE' } } },
    );
    const error = await campaignLive.delete(liveContext(client), 'CFAKE01', undefined).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    await client.close();
    expect((error as Error).message).toBe(
      'Campaign CFAKE01 was not deleted: it is still there after the API answered "Campaign cannot be deleted now"',
    );
  });
});
