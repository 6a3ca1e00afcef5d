import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from './cli.js';

/**
 * Endpoints that misbehave: one that accepts connections and never answers, and one that refuses
 * the credentials while another request hangs. Raw TCP listeners on 127.0.0.1, so nothing answers
 * on their behalf.
 */
let folder: string;
let server: Server | undefined;
const sockets = new Set<Socket>();

/** A listener that reads requests and answers those `answer` returns text for; the others never. */
async function listen(
  answer: (requestLine: string) => string | undefined,
): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined); // the client hangs up on purpose
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      let end = buffered.indexOf('\r\n\r\n');
      while (end >= 0) {
        const requestLine = buffered.slice(0, buffered.indexOf('\r\n'));
        buffered = buffered.slice(end + 4);
        requests.push(requestLine);
        const reply = answer(requestLine);
        if (reply !== undefined) socket.write(reply);
        end = buffered.indexOf('\r\n\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, requests };
}

function envFor(url: string): Record<string, string> {
  return cleanEnv({
    TELFORM_ENDPOINT: url,
    TELFORM_AUTH_ID: 'MAHANGING0000000001',
    TELFORM_AUTH_TOKEN: 'hanging-token',
  });
}

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-hostile-'));
  await writeFile(
    path.join(folder, 'm.yaml'),
    JSON.stringify({
      apiVersion: 'telform/v1',
      kind: 'TrunkIpAcl',
      metadata: { name: 'office' },
      spec: { ip_addresses: ['203.0.113.10'] },
    }),
  );
});
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('an endpoint that accepts connections and never answers', () => {
  it('fails within the retry budget, saying it did not answer, after at most 6 attempts per request', async () => {
    const endpoint = await listen(() => undefined);
    const run = await runCli(['plan', '-f', 'm.yaml'], { cwd: folder, env: envFor(endpoint.url) });
    expect(run.code).toBe(1);
    const url = endpoint.url.replace(/\./g, '\\.');
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: could not read the whole list (\\S+): GET \\1 failed after \\d attempts: ${url} did not answer within 15 s\\n$`,
      ),
    );
    expect(run.stderr).not.toContain('cannot reach');
    const perPath = new Map<string, number>();
    for (const line of endpoint.requests) perPath.set(line, (perPath.get(line) ?? 0) + 1);
    expect(Math.max(...perPath.values())).toBeLessThanOrEqual(6);
  }, 65_000);
});

describe('a fatal answer while other requests hang', () => {
  it('exits at once with the 401, abandoning the hanging request instead of retrying it', async () => {
    const unauthorized =
      'HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: 27\r\n\r\n{"error":"not authorized."}';
    const endpoint = await listen((line) => (line.includes('/Zentrunk/Trunk/') ? undefined : unauthorized));
    const run = await runCli(['plan', '-f', 'm.yaml'], { cwd: folder, env: envFor(endpoint.url) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the API answered 401');
    expect(run.stderr).toContain('check TELFORM_AUTH_ID and TELFORM_AUTH_TOKEN');
    // The hanging request was sent once and never again (its first timeout is 15 s away).
    expect(endpoint.requests.filter((line) => line.includes('/Zentrunk/Trunk/'))).toHaveLength(1);
  }, 12_000);

  it('says an endpoint that answers with a web page is not the API, without retrying', async () => {
    const page = '<html><body>It works!</body></html>';
    const endpoint = await listen(
      () => `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${page.length}\r\n\r\n${page}`,
    );
    const run = await runCli(['plan', '-f', 'm.yaml'], { cwd: folder, env: envFor(endpoint.url) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /answered GET \S+ with 200 and a body that is not JSON: it does not look like the API; check --endpoint \(or TELFORM_ENDPOINT\)\n$/,
    );
    expect(new Set(endpoint.requests).size).toBe(endpoint.requests.length);
  }, 12_000);
});
