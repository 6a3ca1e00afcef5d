import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { RetriesExhaustedError } from '../../src/api/errors.js';

/** What a terminal shows while a request goes unanswered: what is waited for, and for how long. */
let server: Server;
let url: string;

beforeAll(async () => {
  // Accepts every request and never answers it.
  server = createServer(() => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  url = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a request that goes unanswered', () => {
  it('reports what it waits for while it waits, clears the status, then says it did not answer', async () => {
    const statuses: Array<string | undefined> = [];
    const client = new ApiClient({
      baseUrl: url,
      credentials: { authId: 'MASLOW', authToken: 'token' },
      timeoutMs: 3_500,
      retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10, maxTotalMs: 60_000 },
      onSlow: (status) => statuses.push(status),
    });
    const failure = await client.get('/Zentrunk/Trunk/').catch((error: unknown) => error);
    await client.close();
    expect(failure).toBeInstanceOf(RetriesExhaustedError);
    expect((failure as Error).message).toBe(
      `GET /Zentrunk/Trunk/ failed after 1 attempt: ${url} did not answer within 4 s`,
    );
    expect(statuses[0]).toBe(
      `waiting for ${url}: GET /v1/Account/MASLOW/Zentrunk/Trunk/ unanswered for 2 s (gives up after 4 s)`,
    );
    expect(statuses.at(-1)).toBeUndefined();
  });

  it('says the same of an answer whose body stops coming', async () => {
    // Sends the headers and the start of a body, then nothing more.
    const stalling = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"objects": [');
    });
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
    const address = stalling.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const stallingUrl = `http://127.0.0.1:${address.port}`;
    const client = new ApiClient({
      baseUrl: stallingUrl,
      credentials: { authId: 'MASTALL', authToken: 'token' },
      timeoutMs: 1_000,
      retry: { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10, maxTotalMs: 60_000 },
    });
    const failure = await client.get('/Zentrunk/Trunk/').catch((error: unknown) => error);
    await client.close();
    stalling.closeAllConnections();
    await new Promise<void>((resolve) => stalling.close(() => resolve()));
    expect(failure).toBeInstanceOf(RetriesExhaustedError);
    expect((failure as Error).message).toBe(
      `GET /Zentrunk/Trunk/ failed after 1 attempt: ${stallingUrl} did not answer within 1 s`,
    );
  });
});
