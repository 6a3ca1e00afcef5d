import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { RetriesExhaustedError } from '../../src/api/errors.js';

/** A connection error says what happened: a server that was reached and reset the connection is not one that cannot be reached. */
async function listening(
  onConnection: (socket: import('node:net').Socket) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, url: `http://127.0.0.1:${address.port}` };
}

const oneAttempt = { maxAttempts: 1, baseDelayMs: 10, maxDelayMs: 10, maxTotalMs: 60_000 };

describe('connection errors', () => {
  it('say that a server which took the request reset the connection', async () => {
    // Reads the request, then resets the connection (RST) without answering.
    const { server, url } = await listening((socket) => socket.once('data', () => socket.resetAndDestroy()));
    const client = new ApiClient({
      baseUrl: url,
      credentials: { authId: 'MARESET', authToken: 'token' },
      retry: oneAttempt,
    });
    const failure = await client.get('/Zentrunk/Trunk/').catch((error: unknown) => error);
    await client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(failure).toBeInstanceOf(RetriesExhaustedError);
    expect((failure as Error).message).toBe(
      `GET /Zentrunk/Trunk/ failed after 1 attempt: ECONNRESET (${url} closed the connection without answering)`,
    );
  });

  it('say that nothing could be reached when nothing listens', async () => {
    const { server, url } = await listening(() => undefined);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const client = new ApiClient({
      baseUrl: url,
      credentials: { authId: 'MAGONE', authToken: 'token' },
      retry: oneAttempt,
    });
    const failure = await client.get('/Zentrunk/Trunk/').catch((error: unknown) => error);
    await client.close();
    expect((failure as Error).message).toBe(
      `GET /Zentrunk/Trunk/ failed after 1 attempt: ECONNREFUSED (cannot reach ${url})`,
    );
  });
});
