// The emulator for the benchmarks: the built CLI's `telform emulator` in a child process (its CPU
// is not the reconciler's), driven through its HTTP API and its /__emulator/ admin routes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export async function startEmulatorChild(root, args) {
  // The ideal shapes: the benches measure telform on the accounts they build, comparable from run to run,
  // not on the production shapes' legacy objects and 300 extra numbers.
  const child = spawn(
    process.execPath,
    [join(root, 'dist/cli/main.js'), 'emulator', '--port', '0', '--shapes', 'ideal', ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, CI: '' },
    },
  );
  const lines = createInterface({ input: child.stdout });
  const [first] = await once(lines, 'line');
  const url = /listening on (\S+)/.exec(first)?.[1];
  if (!url) throw new Error(`the emulator did not start: ${first}`);
  return {
    url,
    async close() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export class EmulatorAdmin {
  constructor(url) {
    this.url = url;
  }

  async admin(method, path, body) {
    const response = await fetch(`${this.url}/__emulator/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = await response.json();
    if (response.status >= 300)
      throw new Error(`${method} /__emulator/${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }

  /** A new, empty account (seeded like any new account). */
  async addAccount(authId, authToken) {
    await this.admin('POST', 'accounts/', { auth_id: authId, auth_token: authToken });
    return new AccountApi(this.url, authId, authToken);
  }

  async setLatency(ms) {
    await this.admin('POST', 'faults/', { latency: ms });
  }

  /** The API requests an account received after `sinceSeq`. */
  async requests(account, sinceSeq = 0) {
    const { requests } = await this.admin('GET', `requests/?account=${account}&type=request&since_seq=${sinceSeq}`);
    return requests;
  }

  async lastSeq() {
    const { requests } = await this.admin('GET', `requests/?since_seq=0`);
    return requests.length === 0 ? 0 : requests[requests.length - 1].seq;
  }

  async clearRequests() {
    await this.admin('DELETE', 'requests/');
  }
}

export class AccountApi {
  constructor(url, authId, authToken) {
    this.url = url;
    this.authId = authId;
    this.authToken = authToken;
    this.authorization = `Basic ${Buffer.from(`${authId}:${authToken}`).toString('base64')}`;
  }

  env() {
    return { TELFORM_ENDPOINT: this.url, TELFORM_AUTH_ID: this.authId, TELFORM_AUTH_TOKEN: this.authToken };
  }

  async request(method, path, body) {
    const response = await fetch(`${this.url}/v1/Account/${this.authId}${path}`, {
      method,
      headers: { authorization: this.authorization, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json = text === '' ? {} : JSON.parse(text);
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return json;
  }
}

/** Runs `make(i)` for i in [0, count), at most `width` at a time. */
export async function inBatches(count, make, width = 25) {
  const results = [];
  for (let start = 0; start < count; start += width) {
    results.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(width, count - start) }, (_, offset) => make(start + offset)),
      )),
    );
  }
  return results;
}
