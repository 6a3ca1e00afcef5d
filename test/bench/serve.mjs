// `npm run bench:serve`: telform serve under load, against the emulator (a child process) at 20 ms per
// request. Not a test: the figures depend on the machine. Three phases:
//
// 1. Memory over time: serve on an injected clock over BENCH_RSS_ACCOUNTS accounts (default 20)
//    runs 10 intervals to warm up, then 100 back to back; after each, a GC and a second of idle time
//    (serve idles for its whole interval between rounds; V8 hands the pages a GC freed back to the
//    system on background threads, within that second), then RSS is sampled. The last ten samples
//    are compared with the first ten (flat: within 10 %); RSS straight after the GC is printed beside
//    them. A line every ten intervals, so a run stopped part way leaves figures. It runs first, so this process holds nothing else yet.
// 2. One round: N accounts (BENCH_ACCOUNTS, default 1000) × 20 resources (a brand, a campaign whose
//    callbacks come to serve, 18 trunk ACLs and origination URIs), watched by serve in this process;
//    the time of the first round of checks, and the peak RSS.
// 3. A callback storm: the registry expires every campaign at once, so the emulator sends N signed
//    callbacks one after the other. Every campaign must be announced exactly once (an event per
//    campaign, none twice), each within how long of its callback leaving the emulator (p50, p99, max).
// 4. Replicas sharing a queue (serve-queue.mjs): accounts checked per replica per interval at 3 × 300,
//    a fourth replica joining, and memory per replica at 1,000 accounts over 3 replicas beside one
//    process without a queue (BENCH_QUEUE_ACCOUNTS=0 leaves this phase out).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import { EmulatorAdmin, inBatches, startEmulatorChild } from './emulator.mjs';
import { benchReplicas } from './serve-queue.mjs';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'dist/cli/main.js');
const { serveConnections, startServe } = await import(join(root, 'dist/serve/start.js'));
const { ApiClient } = await import(join(root, 'dist/api/client.js'));
const { Limiter } = await import(join(root, 'dist/api/limiter.js'));
const { EndpointPools } = await import(join(root, 'dist/api/pools.js'));
const { systemClock } = await import(join(root, 'dist/util/clock.js'));

const accountCount = Number(process.env.BENCH_ACCOUNTS ?? 1000);
const rssAccounts = Number(process.env.BENCH_RSS_ACCOUNTS ?? 20);
const intervals = Number(process.env.BENCH_INTERVALS ?? 100);
const warmUp = 10;
/** Idle time after each interval's GC before RSS is sampled (BENCH_SETTLE_MS; the suite's smoke run uses 0). */
const settleMs = Number(process.env.BENCH_SETTLE_MS ?? 1_000);
const latencyMs = 20;
const registryDelayMs = 3_600_000;

const gc = globalThis.gc ?? (() => undefined);
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
let peakRss = 0;
let peakSockets = 0;
let pools;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  peakSockets = Math.max(peakSockets, pools?.openSockets ?? 0);
}, 200);
sampler.unref();

function run(args, cwd, env) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stderr }));
  });
}

async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

function manifests(callbackUrl) {
  const documents = [
    {
      kind: 'Brand',
      metadata: { name: 'brand' },
      spec: {
        profile_uuid: '5eed0000-0000-4000-8000-000000000002',
        brand_alias: 'Bluebird Logistics',
        brand_type: 'STANDARD',
        url: callbackUrl,
      },
    },
    {
      kind: 'Campaign',
      metadata: { name: 'campaign' },
      spec: {
        brand_id: { ref: 'brand' },
        vertical: 'TRANSPORTATION',
        usecase: 'MARKETING',
        description: 'Seasonal offers for Bluebird customers; this registration will expire at the registry.',
        sample1: 'Bluebird: 10% off shipping this week. Reply STOP to opt out.',
        sample2: 'Bluebird: your coupon is SHIP10. Reply STOP to opt out.',
        subscriber_optin: true,
        subscriber_optout: true,
        subscriber_help: true,
        direct_lending: false,
        embedded_link: false,
        embedded_phone: false,
        age_gated: false,
        affiliate_marketing: false,
        message_flow: 'Customers opt in with a checkbox on the website and confirm by text.',
        help_message: 'Bluebird Logistics: reply HELP for help, or visit our website for support.',
        optout_message: 'Bluebird Logistics: you are unsubscribed and will receive no more messages.',
        url: callbackUrl,
      },
    },
  ];
  for (let index = 0; index < 9; index += 1)
    documents.push({
      kind: 'TrunkIpAcl',
      metadata: { name: `acl-${index}` },
      spec: { ip_addresses: [`203.0.113.${index + 1}`] },
    });
  for (let index = 0; index < 9; index += 1)
    documents.push({
      kind: 'OriginationUri',
      metadata: { name: `uri-${index}` },
      spec: { uri: `sip${index}.pbx.example.com:5060` },
    });
  return documents.map((document) => JSON.stringify({ apiVersion: 'telform/v1', ...document })).join('\n---\n');
}

/** A clock whose time moves only when told; sleeps end when it reaches them or their signal aborts. */
class InjectedClock {
  time = Date.now();
  sleepers = new Set();
  now() {
    return this.time;
  }
  sleep(ms, signal) {
    return new Promise((done) => {
      if (signal?.aborted) return done();
      const sleeper = { until: this.time + Math.max(0, ms), done };
      this.sleepers.add(sleeper);
      signal?.addEventListener('abort', () => (this.sleepers.delete(sleeper), done()), { once: true });
    });
  }
  advance(ms) {
    this.time += ms;
    for (const sleeper of [...this.sleepers])
      if (sleeper.until <= this.time) (this.sleepers.delete(sleeper), sleeper.done());
  }
}

async function until(condition, what, timeoutMs) {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main() {
  const folder = await mkdtemp(join(tmpdir(), 'telform-bench-serve-'));
  const emulator = await startEmulatorChild(root, ['--registry-delay', String(registryDelayMs)]);
  const admin = new EmulatorAdmin(emulator.url);
  let serve;
  try {
    const port = await freePort();
    const env = { ...process.env, CI: '' };
    for (const key of Object.keys(env)) if (/^(TELFORM_|PLIVO_)/.test(key)) delete env[key];
    const accounts = [];
    const credentials = new Map();
    await inBatches(accountCount, async (index) => {
      const name = `customer-${String(index + 1).padStart(4, '0')}`;
      const authId = `MASERVE${String(index + 1).padStart(13, '0')}`;
      const token = `serve-bench-token-${index + 1}-000000000000000000`;
      await admin.addAccount(authId, token);
      const prefix = name.toUpperCase().replace('-', '_');
      env[`${prefix}_ID`] = authId;
      env[`${prefix}_TOKEN`] = token;
      credentials.set(name, { authId, token });
      await mkdir(join(folder, name));
      await writeFile(join(folder, name, 'resources.yaml'), manifests(`http://127.0.0.1:${port}/callbacks/${name}`));
      accounts[index] = {
        name,
        manifests: [`${name}/`],
        credentials: { auth_id_env: `${prefix}_ID`, auth_token_env: `${prefix}_TOKEN` },
      };
    });
    await writeFile(
      join(folder, 'accounts.yaml'),
      JSON.stringify({ defaults: { state: 'states/{account}.json', endpoint: emulator.url }, accounts }, null, 2),
    );
    let started = performance.now();
    process.stdout.write(`applying ${accountCount} accounts x 20 resources (no latency; brands, then campaigns)... `);
    for (let pass = 0; pass < 2; pass += 1) {
      const applied = await run(
        ['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--account-parallelism', '8'],
        folder,
        env,
      );
      if (applied.code !== 0) throw new Error(`apply failed (${applied.code}): ${applied.stderr.slice(-2000)}`);
      await admin.admin('POST', 'clock/', { advance_ms: registryDelayMs });
    }
    process.stdout.write(`${seconds(performance.now() - started)}\n`);
    await admin.clearRequests();
    await admin.setLatency(latencyMs);

    const events = [];
    // As `telform serve` connects: every account's client on one bounded pool for the endpoint.
    pools = new EndpointPools({ connections: serveConnections(16, 8) });
    const connect = async (globals, io) => {
      const authId = io.env.TELFORM_AUTH_ID;
      const authToken = io.env.TELFORM_AUTH_TOKEN;
      const limiter = new Limiter({ concurrency: 8, requests: 300, periodMs: 5_000 }, systemClock);
      const client = new ApiClient({ baseUrl: emulator.url, credentials: { authId, authToken }, limiter, pools });
      return { client, endpointLabel: emulator.url, account: authId, authToken, close: () => client.close() };
    };
    const serveAccounts = accounts.map((account) => {
      const { authId, token } = credentials.get(account.name);
      return {
        name: account.name,
        manifests: [join(folder, account.name)],
        globals: { state: join(folder, 'states', `${account.name}.json`), endpoint: emulator.url },
        io: { cwd: folder, env: { TELFORM_AUTH_ID: authId, TELFORM_AUTH_TOKEN: token }, stderr: () => undefined },
      };
    });
    const options = {
      connect,
      jitter: 0.1,
      accountParallelism: 16,
      parallelism: 8,
      apply: 'never',
      drainMs: 10_000,
      version: 'bench',
      stderr: () => undefined,
    };
    const fileLimit = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim();
    console.log(
      `serve, ${accountCount} accounts x 20 resources, ${latencyMs} ms per request, 16 accounts at once; open files limit ${fileLimit}; one pool of ${serveConnections(16, 8)} sockets for the endpoint`,
    );
    // Memory over 100 intervals on an injected clock, first: this process then holds nothing else.
    const clock = new InjectedClock();
    const subset = serveAccounts.slice(0, rssAccounts);
    gc();
    const rssIdle = process.memoryUsage().rss;
    const quiet = await startServe({
      ...options,
      accounts: subset,
      intervalMs: 60_000,
      jitter: 0,
      listen: { host: '127.0.0.1', port: 0 },
      clock,
      stdout: () => undefined,
    });
    serve = quiet;
    const views = [...quiet.service.fleet.accounts.values()];
    const samples = [];
    const samplesAtGc = [];
    const roundDone = (since) => views.every((view) => !view.running && (view.lastRunAt ?? -1) >= since);
    await until(() => roundDone(clock.now()), 'the first round', 10 * 60_000);
    gc();
    console.log(
      `  memory, ${rssAccounts} accounts: RSS ${mb(rssIdle)} before serve started, ${mb(process.memoryUsage().rss)} after the first round`,
    );
    started = performance.now();
    // Ten intervals warm up (code compiled, pools and caches filled); the next ones are measured.
    for (let interval = 0; interval < warmUp + intervals; interval += 1) {
      clock.advance(60_000);
      const since = clock.now();
      await until(() => roundDone(since), `interval ${interval + 1}`, 10 * 60_000);
      gc();
      const rssAtGc = process.memoryUsage().rss;
      await new Promise((done) => setTimeout(done, settleMs));
      const rss = process.memoryUsage().rss;
      if (interval >= warmUp) {
        samples.push(rss);
        samplesAtGc.push(rssAtGc);
      }
      if ((interval + 1) % 10 === 0)
        console.log(
          `  interval ${interval + 1} of ${warmUp + intervals}${interval + 1 === warmUp ? ' (warm-up over)' : ''}: RSS ${mb(rss)}, straight after the GC ${mb(rssAtGc)} (${seconds(performance.now() - started)})`,
        );
    }
    const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const first = mean(samples.slice(0, 10));
    const last = mean(samples.slice(-10));
    const growth = (last - first) / first;
    console.log(
      `  memory, ${rssAccounts} accounts x ${intervals} intervals after ${warmUp} to warm up (${seconds(performance.now() - started)}): RSS first ten ${mb(first)}, last ten ${mb(last)} (${(growth * 100).toFixed(1)} %), min ${mb(Math.min(...samples))}, max ${mb(Math.max(...samples))}: ${Math.abs(growth) <= 0.1 ? 'flat' : 'NOT flat'}`,
    );
    console.log(
      `  memory per account:     ${((last - rssIdle) / rssAccounts / 1024).toFixed(0)} KB (RSS after the intervals less ${mb(rssIdle)} before serve started, over ${rssAccounts} accounts); sockets at most ${peakSockets}`,
    );
    console.log(
      `  straight after each GC:  RSS first ten ${mb(mean(samplesAtGc.slice(0, 10)))}, last ten ${mb(mean(samplesAtGc.slice(-10)))}, max ${mb(Math.max(...samplesAtGc))} (pages freed, not yet handed back)`,
    );
    if (Math.abs(growth) > 0.1) process.exitCode = 1;
    await quiet.stop('memory phase over');
    serve = undefined;

    // One round of checks over every account.
    gc();
    const rssBefore = process.memoryUsage().rss;
    peakRss = rssBefore;
    started = performance.now();
    serve = await startServe({
      ...options,
      accounts: serveAccounts,
      intervalMs: 3_600_000,
      listen: { host: '127.0.0.1', port },
      clock: systemClock,
      stdout: (line) => events.push({ ...JSON.parse(line), seenAt: Date.now() }),
    });
    await until(
      () => events.filter((event) => event.type === 'account_status').length >= accountCount,
      'the first round',
      30 * 60_000,
    );
    const roundMs = performance.now() - started;
    const statuses = {};
    for (const event of events) statuses[event.to] = (statuses[event.to] ?? 0) + 1;
    console.log(
      `  first round of checks:  ${seconds(roundMs)} (${JSON.stringify(statuses)}); RSS ${mb(rssBefore)} before, peak ${mb(peakRss)}; sockets at most ${peakSockets}`,
    );

    // The callback storm.
    const mark = events.length;
    const sentFrom = (await admin.lastSeq()) + 1;
    started = performance.now();
    const offsetBefore = Date.parse((await admin.admin('GET', 'health/')).now) - Date.now();
    await admin.admin('POST', 'clock/', { advance_ms: registryDelayMs });
    await until(
      () => events.slice(mark).filter((event) => event.type === 'registry_status').length >= accountCount,
      'an event per expired campaign',
      30 * 60_000,
    );
    const stormMs = performance.now() - started;
    const { requests: callbacks } = await admin.admin('GET', `requests/?type=callback&since_seq=${sentFrom - 1}`);
    const offset = offsetBefore + registryDelayMs;
    const sentAt = new Map();
    for (const callback of callbacks) {
      const name = callback.path.split('/callbacks/')[1];
      if (callback.delivered && !sentAt.has(name)) sentAt.set(name, Date.parse(callback.at) - offset);
    }
    const moves = events.slice(mark).filter((event) => event.type === 'registry_status');
    const keys = moves.map((event) => `${event.account} ${event.address} ${event.to}`);
    const distinct = new Set(keys).size;
    const byCallback = moves.filter((event) => event.cause === 'callback');
    const latencies = byCallback
      .map((event) => event.seenAt - (sentAt.get(event.account) ?? event.seenAt))
      .sort((a, b) => a - b);
    const callbackSpan = callbacks.length > 1 ? Date.parse(callbacks.at(-1).at) - Date.parse(callbacks[0].at) : 0;
    console.log(
      `  callback storm:         ${callbacks.length} callbacks sent in ${seconds(callbackSpan)}; ${moves.length} campaign events (${distinct} distinct, ${byCallback.length} through the callback) in ${seconds(stormMs)}`,
    );
    console.log(
      `  callback to event:      p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms; peak RSS ${mb(peakRss)}`,
    );
    const complete = moves.length === accountCount && distinct === accountCount;
    console.log(`  every event once:       ${complete ? 'yes' : 'NO'}`);
    if (!complete) process.exitCode = 1;
    await serve.stop('storm over');
    serve = undefined;
  } finally {
    await serve?.stop('bench over');
    await pools?.close();
    await emulator.close();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
await benchReplicas(root);
