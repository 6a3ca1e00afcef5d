#!/usr/bin/env node
// Import of a large account: `npm run bench:import` (builds first).
//
// Starts the built `telform emulator` in a child process (its CPU is not the importer's) with 20 ms of
// latency on every API request and production's rate limit (300 requests per 5 s), serving one account
// per size, each seeded (the seed file's held objects, so seeding costs no requests) with 1,000, 5,000
// and 15,000 trunking objects: a third each trunk IP ACLs, origination URIs and trunks, every trunk
// pointing at one of them. Then it times `telform import` (the built CLI, a child process, at its
// defaults: 8 requests in flight under the 300-per-5 s client limit) on each account and prints its wall
// time, its requests and its ratio to the floor (test/bench/floor.mjs): start-up (the median wall time of
// `telform --version`) plus the larger of the pages' floor (every list read, 8 in flight) and the
// rate limit's window floor for the requests the run sent.
//
// BENCH_SIZES=1000,5000 limits the sizes (default 1000,5000,15000); BENCH_RUNS=N times each size N
// times (default 1; the row is the median run); BENCH_PROFILE_DIR=DIR writes a CPU profile of every
// import run there (`node test/bench/profile-summary.mjs FILE`). Exits 1 only when an import fails or
// imports the wrong count; the targets (1.5× the floor at 1,000 and 5,000, 1.2× at 15,000, where the
// window sets it) are printed, not enforced: a loaded machine moves wall times, not the work.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bench = (file) => pathToFileURL(join(root, 'test/bench', file)).href;
const { AccountApi, EmulatorAdmin, startEmulatorChild } = await import(bench('emulator.mjs'));
const { median, pagesToRead, rateFloorMs, readFloorMs } = await import(bench('floor.mjs'));

const sizes = (process.env.BENCH_SIZES ?? '1000,5000,15000').split(',').filter(Boolean).map(Number);
const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 1));
const profileDir = process.env.BENCH_PROFILE_DIR ? resolve(process.env.BENCH_PROFILE_DIR) : undefined;
const latencyMs = 20;
const parallelism = 8;
const productionLimit = { requests: 300, periodMs: 5_000 };
const probe = pathToFileURL(join(root, 'test/bench/probe.mjs')).href;
const cli = join(root, 'dist/cli/main.js');

const uuid = (group, index) => `${group}000000-0000-4000-8000-${String(index).padStart(12, '0')}`;

/** A third each of ACLs, URIs and trunks (the remainder to the ACLs), each trunk on its own ACL or URI. */
function heldTrunking(size) {
  const trunks = Math.floor(size / 3);
  const uris = Math.floor(size / 3);
  const acls = size - trunks - uris;
  const pad = (index) => String(index).padStart(5, '0');
  return {
    trunk_ip_acls: Array.from({ length: acls }, (_, i) => ({
      ipacl_uuid: uuid('a1', i),
      name: `acl-${pad(i)}`,
      ip_addresses: [`10.${Math.floor(i / 250) % 250}.${i % 250}.1`, `192.0.2.${i % 250}`],
    })),
    origination_uris: Array.from({ length: uris }, (_, i) => ({
      uri_uuid: uuid('b2', i),
      name: `uri-${pad(i)}`,
      uri: `sip${i}.pbx.example.com:5060`,
    })),
    trunks: Array.from({ length: trunks }, (_, i) => ({
      trunk_id: String(70_000_000_000 + i),
      name: `trunk-${pad(i)}`,
      ...(i % 2 === 0
        ? { trunk_direction: 'outbound', ipacl_uuid: uuid('a1', i) }
        : { trunk_direction: 'inbound', primary_uri_uuid: uuid('b2', i) }),
    })),
    counts: { TrunkIpAcl: acls, OriginationUri: uris, Trunk: trunks },
  };
}

const work = await mkdtemp(join(tmpdir(), 'telform-bench-import-'));
const accounts = sizes.map((size, index) => {
  const { counts, ...existing } = heldTrunking(size);
  return {
    size,
    counts,
    authId: `MABENCHIMPORT${String(index + 1).padStart(7, '0')}`,
    authToken: `bench-import-token-${index + 1}-000000000000`,
    existing,
  };
});
const seedFile = join(work, 'seed.json');
await writeFile(
  seedFile,
  JSON.stringify({
    accounts: accounts.map(({ authId, authToken, existing }) => ({ auth_id: authId, auth_token: authToken, existing })),
  }),
);
const emulator = await startEmulatorChild(root, [
  '--latency',
  String(latencyMs),
  '--rate-limit',
  `${productionLimit.requests}/${productionLimit.periodMs / 1000}s`,
  '--registry-delay',
  '0',
  '--seed',
  seedFile,
]);
const admin = new EmulatorAdmin(emulator.url);

/** Runs the built CLI; its wall time, exit, output, peak RSS and CPU. */
async function telform(cwd, env, args, profile) {
  const probeFile = join(cwd, '.probe.json');
  const profileArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', profile] : [];
  const started = performance.now();
  const run = await new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [...profileArgs, '--import', probe, cli, ...args], {
      cwd,
      env: { ...process.env, ...env, CI: '', NO_COLOR: '1', BENCH_PROBE_FILE: probeFile },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolveRun({ status, stdout, stderr }));
  });
  const wallMs = performance.now() - started;
  const usage = args[0] === '--version' ? undefined : JSON.parse(await readFile(probeFile, 'utf8'));
  return { ...run, wallMs, usage };
}

async function measureStartUp() {
  const times = [];
  for (let i = 0; i < 9; i++) times.push((await telform(work, {}, ['--version'])).wallMs);
  return median(times);
}

/** What an import reads: every kind's list (the phone numbers' list for PhoneNumber), with what it holds. */
async function listCounts(account) {
  const api = new AccountApi(emulator.url, account.authId, account.authToken);
  const total = async (path) => (await api.request('GET', `${path}?limit=1`)).meta?.total_count ?? 0;
  return {
    SipCredential: 0,
    SipIpAcl: 0,
    TrunkCredential: 0,
    Brand: 0,
    Campaign: 0,
    ...account.counts,
    Number: (await admin.admin('GET', `accounts/${account.authId}/numbers/`)).numbers.length,
    Profile: await total('/Profile/'),
    // ApplicationSipAuth is read from the applications list.
    Application: await total('/Application/'),
  };
}

let profileSerial = 0;
async function importOnce(account, attempt) {
  const folder = join(work, `import-${account.size}-${attempt}`);
  const env = {
    TELFORM_ENDPOINT: emulator.url,
    TELFORM_AUTH_ID: account.authId,
    TELFORM_AUTH_TOKEN: account.authToken,
  };
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  const before = await admin.lastSeq();
  const profile = profileDir
    ? `${String(++profileSerial).padStart(3, '0')}-import-${account.size}.cpuprofile`
    : undefined;
  const run = await telform(folder, env, ['import', '--out', 'imported', '--state', 'import.state.json'], profile);
  if (run.status !== 0)
    throw new Error(`telform import (${account.size}) exited ${run.status}\n${run.stderr.slice(-3000)}`);
  const requests = await admin.requests(account.authId, before);
  const state = JSON.parse(await readFile(join(folder, 'import.state.json'), 'utf8'));
  const imported = Object.keys(state.resources ?? {}).length;
  if (imported < account.size)
    throw new Error(`telform import (${account.size}) recorded ${imported} resources, not ${account.size}`);
  // The next run imports the same account again: hand it back (not timed).
  const released = await telform(folder, env, ['state', 'release', '--state', 'import.state.json']);
  if (released.status !== 0) throw new Error(`telform state release exited ${released.status}\n${released.stderr}`);
  await rm(folder, { recursive: true, force: true });
  return {
    wallMs: run.wallMs,
    requests: requests.length,
    rateLimited: requests.filter((request) => request.status === 429).length,
    cpuMs: run.usage.user_ms + run.usage.system_ms,
    rssMb: run.usage.max_rss_kb / 1024,
    imported,
    profile,
  };
}

const round = (value) => Math.round(value * 100) / 100;
const rows = [];
try {
  const startUpMs = await measureStartUp();
  process.stdout.write(
    `emulator at ${latencyMs} ms per request and ${productionLimit.requests} requests per ${productionLimit.periodMs / 1000} s; ` +
      `${cpus().length} cores, load average ${loadavg()
        .map((v) => v.toFixed(1))
        .join(' ')}; start-up (median of 9 × telform --version) ${(startUpMs / 1000).toFixed(2)} s, in every floor\n`,
  );
  process.stdout.write(
    `${['objects', '    wall', 'reqs', '429', 'read floor', 'window floor', '   floor', ' ratio', 'target', '   CPU', 'peak RSS'].join('  ')}\n`,
  );
  for (const account of accounts) {
    const counts = await listCounts(account);
    const lists = Object.keys(counts).length;
    const readFloor = readFloorMs({ kinds: lists, pages: pagesToRead(counts), parallelism, latencyMs });
    const attempts = [];
    for (let attempt = 0; attempt < runs; attempt++) attempts.push(await importOnce(account, attempt));
    const result = [...attempts].sort((a, b) => a.wallMs - b.wallMs)[Math.floor((attempts.length - 1) / 2)];
    const windowFloor = rateFloorMs({ requests: result.requests, limit: productionLimit, parallelism, latencyMs });
    const floorMs = startUpMs + Math.max(readFloor, windowFloor);
    const target = windowFloor > readFloor ? 1.2 : 1.5;
    const row = {
      objects: account.size,
      wall_s: round(result.wallMs / 1000),
      walls_s: attempts.map((one) => round(one.wallMs / 1000)),
      requests: result.requests,
      rate_limited: result.rateLimited,
      read_floor_s: round((startUpMs + readFloor) / 1000),
      window_floor_s: round((startUpMs + windowFloor) / 1000),
      floor_s: round(floorMs / 1000),
      ratio: round(result.wallMs / floorMs),
      target,
      cpu_s: round(result.cpuMs / 1000),
      peak_rss_mb: Math.round(result.rssMb),
      ...(result.profile ? { profile: result.profile } : {}),
    };
    rows.push(row);
    process.stdout.write(
      `${[
        row.objects.toLocaleString('en-US').padStart(7),
        `${row.wall_s.toFixed(2)} s`.padStart(8),
        String(row.requests).padStart(4),
        String(row.rate_limited).padStart(3),
        `${row.read_floor_s.toFixed(2)} s`.padStart(10),
        `${row.window_floor_s.toFixed(2)} s`.padStart(12),
        `${row.floor_s.toFixed(2)} s`.padStart(8),
        `${row.ratio.toFixed(2)}×`.padStart(6),
        `${row.ratio <= target ? '≤' : '>'} ${target}×`.padStart(6),
        `${row.cpu_s.toFixed(2)} s`.padStart(6),
        `${row.peak_rss_mb} MB`.padStart(8),
        runs > 1 ? `  runs ${row.walls_s.map((wall) => wall.toFixed(2)).join(' / ')} s` : '',
      ].join('  ')}\n`,
    );
  }
  process.stdout.write(
    `load average after: ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}\n`,
  );
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
}
