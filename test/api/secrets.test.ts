import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { defaultAccount, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { TelformError } from '../../src/util/errors.js';
import { catalog } from '../../src/resources/index.js';
import { InstantClock } from '../support/clock.js';
import { liveContext } from '../../src/resources/live-side.js';

/**
 * Secrets stay secret: no secret — passwords sent, the auth token — appears in any
 * error, log line or `--log-http` output. Each test greps everything it produced for the real values.
 */
const passwords = { sip: 'SecretSipValue9', trunk: 'Tr!kSecret77', uri: 'uri-secret-value-88', weak: 'weakpass' };
let emulator: RunningEmulator;
let echo: Server;
let echoUrl: string;

/** Everything an error can show: message, JSON details, and its causes, as the CLI could print them. */
function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth += 1) {
    if (current instanceof Error) {
      parts.push(current.message, String(current.stack));
      if (current instanceof TelformError)
        parts.push(JSON.stringify(current.details), JSON.stringify(current.place ?? null));
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join('\n');
}

function expectNoSecret(texts: readonly string[], secrets: readonly string[]): void {
  const all = texts.join('\n');
  for (const secret of secrets) expect(all.includes(secret), `found a secret in:\n${all}`).toBe(false);
}

beforeAll(async () => {
  emulator = await startEmulator();
  // A server that echoes the body it was sent in its error, as a careless API might.
  echo = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ api_id: 'x', error: `invalid request ${body}`, echo: JSON.parse(body || '{}') as unknown }),
      );
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await emulator.close();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

describe('secrets stay out of output', () => {
  it('redacts passwords and never shows the auth token in --log-http lines of creates and updates', async () => {
    const lines: string[] = [];
    const client = new ApiClient({
      baseUrl: emulator.url,
      credentials: defaultAccount,
      logHttp: (line) => lines.push(line),
    });
    const context = liveContext(client);
    try {
      const sip = await catalog
        .get('SipCredential')
        ?.live?.create(context, { username: 'secret-test', password: passwords.sip });
      const trunk = await catalog
        .get('TrunkCredential')
        ?.live?.create(context, { name: 'secret-test', username: 'secrettest1', password: passwords.trunk });
      await catalog.get('OriginationUri')?.live?.create(context, {
        name: 'secret-test',
        uri: 'h.example.com',
        authentication_needed: true,
        username: 'u',
        password: passwords.uri,
      });
      const current = await catalog.get('TrunkCredential')?.live?.read(context, trunk?.id ?? '');
      if (!sip || !trunk || !current) throw new Error('setup failed');
      await catalog.get('TrunkCredential')?.live?.update(context, {
        id: trunk.id,
        desired: { name: 'secret-test', username: 'secrettest1', password: `${passwords.trunk}x` },
        live: current,
        changedFields: [],
        secretFields: ['password'],
      });
    } finally {
      await client.close();
    }
    expect(lines.filter((line) => line.includes('"password":"(sensitive)"'))).toHaveLength(4);
    expectNoSecret(lines, [
      ...Object.values(passwords),
      `${passwords.trunk}x`,
      defaultAccount.authToken,
      Buffer.from(`${defaultAccount.authId}:${defaultAccount.authToken}`).toString('base64'),
    ]);
  });

  it('keeps the password out of an API refusal of it', async () => {
    const lines: string[] = [];
    const client = new ApiClient({
      baseUrl: emulator.url,
      credentials: defaultAccount,
      logHttp: (line) => lines.push(line),
    });
    try {
      const failure = await catalog
        .get('SipCredential')
        ?.live?.create(liveContext(client), { username: 'weak-user', password: passwords.weak })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(TelformError);
      expect((failure as Error).message).toBe(
        'the API answered 400 to POST /SipAuth/Credential/: password must be 8 to 128 characters with at least one uppercase letter, one lowercase letter and one digit',
      );
      expectNoSecret([describeError(failure), ...lines], [passwords.weak]);
    } finally {
      await client.close();
    }
  });

  it('scrubs a password the API echoes back, from the error and from the response log', async () => {
    const lines: string[] = [];
    const client = new ApiClient({
      baseUrl: echoUrl,
      credentials: defaultAccount,
      logHttp: (line) => lines.push(line),
    });
    try {
      const failure = await client
        .request('POST', '/Zentrunk/Credential/', {
          body: { username: 'echoed', password: passwords.trunk },
          mode: 'create',
        })
        .catch((error: unknown) => error);
      expect((failure as Error).message).toBe(
        'the API answered 400 to POST /Zentrunk/Credential/: invalid request {"username":"echoed","password":"(sensitive)"}',
      );
      expect(lines[1]).toContain('"echo":{"username":"echoed","password":"(sensitive)"}');
      expectNoSecret([describeError(failure), ...lines], [passwords.trunk, defaultAccount.authToken]);
    } finally {
      await client.close();
    }
  });

  it('keeps passwords out of the errors of writes whose answer was lost or that ran out of retries', async () => {
    const lines: string[] = [];
    const client = new ApiClient({
      baseUrl: emulator.url,
      credentials: defaultAccount,
      clock: new InstantClock(),
      logHttp: (line) => lines.push(line),
    });
    const errors: unknown[] = [];
    try {
      for (const faults of ['lost=1,methods=POST', 'reset=1,methods=POST', '500=1,methods=POST']) {
        emulator.controls.update({ faults });
        for (const mode of ['create', 'billable', 'idempotent'] as const) {
          errors.push(
            await client
              .request('POST', '/Zentrunk/Credential/', {
                body: { username: 'lostsecret', password: passwords.trunk },
                mode,
              })
              .catch((error: unknown) => error),
          );
        }
      }
    } finally {
      emulator.controls.clear();
      await client.close();
    }
    expect(errors.every((error) => error instanceof TelformError)).toBe(true);
    expectNoSecret([...errors.map(describeError), ...lines], [passwords.trunk, defaultAccount.authToken]);
  });
});
