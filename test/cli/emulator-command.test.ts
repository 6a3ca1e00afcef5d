import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { call, type HttpAnswer } from '../emulator/fixtures/http.js';

/** `telform emulator` as a user runs it: the built CLI (`npm run build`) in a child process. */
const cli = resolve('dist/cli/main.js');
let directory: string;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  expect(existsSync(cli), 'run `npm run build` first: this test drives the built CLI').toBe(true);
  directory = await mkdtemp(join(tmpdir(), 'telform-cli-emulator-'));
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(directory, { recursive: true, force: true });
});

/** Runs the command to its end (for refused flags); returns its exit code and output. */
function runToEnd(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [cli, 'emulator', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

/** Starts the command and resolves with its URL once it prints `listening on`. */
interface Serving {
  url: string;
  /** What the command has written to stderr so far. */
  stderr(): string;
  /** Resolves with stderr once it holds a whole line (pipes may deliver it after the stdout line). */
  stderrLine(): Promise<string>;
  stop(): Promise<number | null>;
}

function startServing(args: string[]): Promise<Serving> {
  const child = spawn(process.execPath, [cli, 'emulator', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let stderr = '';
  const lineWritten = new Promise<void>((written) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('\n')) written();
    });
  });
  return new Promise((found, fail) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /^listening on (http:\/\/\S+)\n$/.exec(stdout);
      if (match) {
        found({
          url: match[1] as string,
          stderr: () => stderr,
          stderrLine: () => lineWritten.then(() => stderr),
          stop: async () => {
            child.kill('SIGTERM');
            const code = await exited;
            children.delete(child);
            return code;
          },
        });
      }
    });
    void exited.then(() => fail(new Error(`exited before listening: ${stderr}`)));
  });
}

describe('telform emulator flags', () => {
  it.each([
    [
      ['--faults', 'lost=2'],
      `error: option '--faults <spec>' argument 'lost=2' is invalid. lost must be a probability from 0 to 1 or a percentage such as 5%, not "2".`,
    ],
    [
      ['--latency', '9-3'],
      `error: option '--latency <ms>' argument '9-3' is invalid. the latency range 9-3 must not start above its end.`,
    ],
    [
      ['--rate-limit', '300'],
      `error: option '--rate-limit <n/period>' argument '300' is invalid. rate limit must be REQUESTS/PERIOD such as 300/5s, 10/s or 1000/1m, not "300".`,
    ],
    [
      ['--port', '99999'],
      `error: option '--port <port>' argument '99999' is invalid. the port must be a whole number from 0 to 65535, not "99999".`,
    ],
    [
      ['--port', '-1'],
      `error: option '--port <port>' argument '-1' is invalid. the port must be a whole number from 0 to 65535, not "-1".`,
    ],
    [
      ['--port', '80x'],
      `error: option '--port <port>' argument '80x' is invalid. the port must be a whole number from 0 to 65535, not "80x".`,
    ],
    [
      ['--account', 'MAX:'],
      'error: --account value number 1 must be ID:TOKEN, with an Auth ID of 1 to 64 letters or digits and a non-empty token.',
    ],
    [
      ['--products', 'sip,10dlc'],
      `error: option '--products <list>' argument 'sip,10dlc' is invalid. unknown product "sip" (the products are sip-trunking, 10dlc, or none).`,
    ],
    [
      ['--shapes', 'real'],
      `error: option '--shapes <shapes>' argument 'real' is invalid. Allowed choices are production, ideal.`,
    ],
  ])('refuses %j with one line and exit code 1', async (args, message) => {
    const { code, stdout, stderr } = await runToEnd(args);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.split('\n')[0]).toBe(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('never echoes a token of a refused --account', async () => {
    const { code, stderr } = await runToEnd(['--account', 'bad id:very-secret-token']);
    expect(code).toBe(1);
    expect(stderr).not.toContain('very-secret-token');
  });

  it('refuses an unreadable data file in one sentence', async () => {
    const dataFile = join(directory, 'corrupt.json');
    await writeFile(dataFile, 'not json');
    const { code, stderr } = await runToEnd(['--data', dataFile]);
    expect(code).toBe(1);
    expect(stderr).toBe(`error: The emulator data file ${dataFile} is not valid JSON; move it away to start fresh.\n`);
  });

  it('answers dozens of requests waiting out --latency at once without a listener warning', async () => {
    const running = await startServing(['--latency', '50']);
    const path = `/v1/Account/${defaultAccount.authId}/Zentrunk/IPAccessControlList/`;
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        call(running.url, path, { auth: [defaultAccount.authId, defaultAccount.authToken] }),
      ),
    );
    expect(answers.every((answer) => 'status' in answer && answer.status === 200)).toBe(true);
    expect(await running.stop()).toBe(0);
    expect(running.stderr()).not.toContain('MaxListenersExceededWarning');
  });

  it('serves several accounts, applies --faults, --latency and --rate-limit, and stops cleanly on SIGTERM', async () => {
    const dataFile = join(directory, 'served.json');
    const running = await startServing([
      '--data',
      dataFile,
      '--account',
      'MATEAMA0000000000001:token-a',
      '--account',
      'MATEAMB0000000000002:token-b',
      '--faults',
      '500=0.25,methods=DELETE,seed=11',
      '--latency',
      '1-2',
      '--rate-limit',
      '300/5s',
    ]);
    const path = (authId: string): string => `/v1/Account/${authId}/Zentrunk/IPAccessControlList/`;
    expect(
      await call(running.url, path('MATEAMA0000000000001'), { auth: ['MATEAMA0000000000001', 'token-a'] }),
    ).toMatchObject({ status: 200 });
    expect(
      await call(running.url, path('MATEAMB0000000000002'), { auth: ['MATEAMB0000000000002', 'token-b'] }),
    ).toMatchObject({ status: 200 });
    // With only --account flags, the default account is not served.
    expect(
      await call(running.url, path(defaultAccount.authId), { auth: [defaultAccount.authId, defaultAccount.authToken] }),
    ).toMatchObject({
      status: 401,
    });
    expect(await call(running.url, '/__emulator/faults/')).toMatchObject({
      status: 200,
      body: {
        faults: { spec: '500=0.25,reset=0,lost=0,methods=DELETE,seed=11' },
        latency: { spec: '1-2' },
        rate_limit: { spec: '300/5s', limit: 300, period_ms: 5000 },
      },
    });
    expect(await running.stop()).toBe(0);
    // A clean stop releases the data file.
    expect(existsSync(`${dataFile}.lock`)).toBe(false);
  });

  it('answers trunk GETs flat with --trunk-get flat, nested under object by default', async () => {
    const auth: [string, string] = [defaultAccount.authId, defaultAccount.authToken];
    const base = `/v1/Account/${defaultAccount.authId}/Zentrunk`;
    for (const [args, nested] of [
      [[], true],
      [['--trunk-get', 'flat'], false],
    ] as const) {
      const running = await startServing([...args]);
      const uri = (await call(running.url, `${base}/URI/`, {
        auth,
        method: 'POST',
        body: { uri: 'pbx.example.com' },
      })) as HttpAnswer;
      const trunk = (await call(running.url, `${base}/Trunk/`, {
        auth,
        method: 'POST',
        body: { trunk_direction: 'inbound', primary_uri_uuid: (uri.body as { uri_uuid: string }).uri_uuid },
      })) as HttpAnswer;
      const id = (trunk.body as { trunk_id: string }).trunk_id;
      const read = ((await call(running.url, `${base}/Trunk/${id}/`, { auth })) as HttpAnswer).body as Record<
        string,
        unknown
      >;
      expect(nested ? (read['object'] as { trunk_id: string }).trunk_id : read['trunk_id']).toBe(id);
      expect(await running.stop()).toBe(0);
    }
  });

  it('serves an account without SIP trunking, in the production shapes, with --products 10dlc --shapes production', async () => {
    const running = await startServing(['--products', '10dlc', '--shapes', 'production']);
    const auth: [string, string] = [defaultAccount.authId, defaultAccount.authToken];
    const base = `/v1/Account/${defaultAccount.authId}`;
    expect(await call(running.url, `${base}/Zentrunk/Trunk/`, { auth })).toMatchObject({
      status: 403,
      body: { error: 'SIP trunking not enabled' },
    });
    const brands = (await call(running.url, `${base}/10dlc/Brand/BSTRT02/`, { auth })) as HttpAnswer;
    expect(brands).toMatchObject({ status: 200, body: { brand: { brand_type: 'STARTER' } } });
    expect(await running.stop()).toBe(0);
  });

  it('starts from a --seed file', async () => {
    const running = await startServing(['--seed', resolve('test/emulator/fixtures/seed.yaml')]);
    const answer = await call(running.url, `/v1/Account/${defaultAccount.authId}/Application/88800000000000001/`, {
      auth: [defaultAccount.authId, defaultAccount.authToken],
    });
    expect(answer).toMatchObject({ status: 200, body: { app_name: 'seeded-fixed' } });
    expect(await running.stop()).toBe(0);
  });

  it('refuses a clock advance out of range with 400 and keeps serving, with nothing on stderr', async () => {
    const running = await startServing([]);
    const auth: [string, string] = [defaultAccount.authId, defaultAccount.authToken];
    const refused = (await call(running.url, '/__emulator/clock/', {
      method: 'POST',
      body: { advance_ms: 1e308 },
    })) as HttpAnswer;
    expect(refused).toMatchObject({
      status: 400,
      body: {
        error: 'advance_ms must be a non-negative number of milliseconds that keeps the clock before the year 10000',
      },
    });
    expect(await call(running.url, '/__emulator/health/')).toMatchObject({ status: 200, body: { status: 'ok' } });
    const created = await call(running.url, `/v1/Account/${defaultAccount.authId}/Zentrunk/IPAccessControlList/`, {
      auth,
      method: 'POST',
      body: { ip_addresses: ['10.0.0.1'] },
    });
    expect(created).toMatchObject({ status: 201 });
    expect(running.stderr()).toBe('');
    expect(await running.stop()).toBe(0);
  });

  it('answers 400 to a malformed percent-encoding in a path, without a stack trace', async () => {
    const running = await startServing([]);
    const auth: [string, string] = [defaultAccount.authId, defaultAccount.authToken];
    const answer = await call(running.url, `/v1/Account/${defaultAccount.authId}/Zentrunk/Trunk/%zz/`, { auth });
    expect(answer).toMatchObject({
      status: 400,
      body: { error: 'the path segment "%zz" is not valid percent-encoding' },
    });
    expect(Object.keys((answer as HttpAnswer).body as object)).toEqual(['api_id', 'error']);
    expect(running.stderr()).toBe('');
    expect(await running.stop()).toBe(0);
  });

  it('warns on stderr when it listens on an address that is not loopback', async () => {
    const running = await startServing(['--host', '0.0.0.0']);
    expect(await running.stderrLine()).toBe(
      'warning: the emulator listens on 0.0.0.0, which is not a loopback address: anyone who can reach it can use the /__emulator/ admin routes, which need no authentication.\n',
    );
    expect(await running.stop()).toBe(0);
    const quiet = await startServing(['--host', 'localhost']);
    expect(quiet.stderr()).toBe('');
    expect(await quiet.stop()).toBe(0);
  });
});
