import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { Limiter } from '../../src/api/limiter.js';
import { EndpointPools } from '../../src/api/pools.js';
import { systemClock } from '../../src/util/clock.js';

/** serve's clients share one bounded pool per endpoint: the sockets stay within the bound however many accounts there are. */
let server: Server;
let url: string;
const sockets = new Set<Socket>();
let peakOpen = 0;
const seen: Array<{ account: string; authorization: string }> = [];

beforeAll(async () => {
  // Answers every request a moment later, so many are in flight at once.
  server = createServer((request, response) => {
    const account = /\/Account\/([^/]+)\//.exec(request.url ?? '')?.[1] ?? '';
    seen.push({ account, authorization: request.headers.authorization ?? '' });
    setTimeout(() => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ objects: [] }));
    }, 2);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    peakOpen = Math.max(peakOpen, [...sockets].filter((each) => !each.destroyed).length);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  url = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const basic = (account: string) => `Basic ${Buffer.from(`${account}:token-${account}`).toString('base64')}`;

describe('EndpointPools', () => {
  it('keeps every client of an endpoint on at most its connections, each request with its own account', async () => {
    const pools = new EndpointPools({ connections: 3 });
    const clients = Array.from({ length: 40 }, (_, index) => {
      const account = `MAPOOL${String(index).padStart(4, '0')}`;
      const limiter = new Limiter({ concurrency: 8, requests: 300, periodMs: 5_000 }, systemClock);
      return {
        account,
        client: new ApiClient({
          baseUrl: url,
          credentials: { authId: account, authToken: `token-${account}` },
          limiter,
          pools,
        }),
      };
    });
    const answers = await Promise.all(
      clients.flatMap(({ client }) => Array.from({ length: 5 }, () => client.get('/Zentrunk/Trunk/'))),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 200 }, () => 200));
    expect(peakOpen).toBeLessThanOrEqual(3);
    expect(pools.openSockets).toBeLessThanOrEqual(3);
    expect(seen).toHaveLength(200);
    for (const { account, authorization } of seen) expect(authorization).toBe(basic(account));

    // A client that closes leaves the shared pool to the others.
    await clients[0]?.client.close();
    await expect(clients[0]?.client.get('/Zentrunk/Trunk/')).rejects.toThrow(
      'the request was abandoned because the run stopped',
    );
    expect((await clients[1]?.client.get('/Zentrunk/Trunk/'))?.status).toBe(200);
    await pools.close();
    expect(pools.openSockets).toBe(0);
  });

  it('refuses a pool without connections', () => {
    expect(() => new EndpointPools({ connections: 0 })).toThrow('a shared pool needs at least one connection');
  });
});
