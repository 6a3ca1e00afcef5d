import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresBackend } from '../../src/state/backends/postgres.js';

/**
 * A state database that asks for a password (SCRAM-SHA-256, as a PostgreSQL server set up for
 * passwords does) when none was given: the error says which password and where telform reads it,
 * not the driver's "client password must be a string". The server here speaks just enough of the
 * protocol to ask.
 */
let server: Server;
let port: number;
const sockets: Socket[] = [];

function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

function authentication(code: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeInt32BE(code);
  return message('R', Buffer.concat([head, payload]));
}

beforeAll(async () => {
  server = createServer((socket) => {
    sockets.push(socket);
    let stage = 0;
    socket.on('data', () => {
      // First the startup message: ask for SCRAM. Then the client's first SASL message: answer with a server-first message.
      if (stage === 0) socket.write(authentication(10, Buffer.from('SCRAM-SHA-256\0\0')));
      else if (stage === 1)
        socket.write(authentication(11, Buffer.from('r=abcdefghijklmnopqrstuvwxyz0123456789,s=c2FsdHNhbHQ=,i=4096')));
      stage += 1;
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  port = address.port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a state database that asks for a password', () => {
  it('says which password is missing and where telform reads it', async () => {
    const failure = await PostgresBackend.open(`postgres://telform@127.0.0.1:${port}/ledger`, 'default', {}).catch(
      (error: unknown) => error,
    );
    expect((failure as Error).message).toBe(
      `the state database postgres://telform@127.0.0.1:${port}/ledger (workspace default) asks for the password of user telform, and none was given: set PGPASSWORD (telform reads the database password from it, or from the URL as postgres://USER:PASSWORD@HOST/DB)`,
    );
    expect((failure as { code?: string }).code).toBe('state_database');
  });
});
