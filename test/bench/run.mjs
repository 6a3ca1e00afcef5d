#!/usr/bin/env node
// `npm run bench`: telform against the emulator at 20 ms of latency per request, for accounts of
// 100, 1,000, 3,000 and 5,000 resources over every kind. For each size: plan on an empty account, apply
// creating everything (with production's client rate limit and without), a converged plan, drift,
// import, an apply changing 10% (with and without the limit), and the naive way of reading the same
// objects (one GET each, serially and 10 at a time) as the comparison. Every figure is printed beside
// its floor (./floor.mjs). Prints a table and writes test/bench/results.json.
//
// Every floor of a CLI run includes start-up: the median wall time of `telform --version`, measured
// here before the runs (the definition: a command cannot finish before the process has
// started, and no client can read faster than its pages allow).
//
// The converged plan and drift rows are the median of 3 runs (BENCH_CONVERGED_RUNS), all runs' wall
// times in `walls_s`.
//
// BENCH_SIZES=100,1000 limits the sizes (default 100, 1,000, 3,000 and 5,000); BENCH_LATENCY_MS changes the latency; BENCH_RESULTS=FILE
// writes the results elsewhere; BENCH_PROFILE_DIR=DIR
// writes a CPU profile of every CLI run there (named in the row; summarise one with
// `node test/bench/profile-summary.mjs FILE`). Profiling slows the runs: read the CPU columns of
// such a run, not its wall times.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, cpus, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { AccountApi, EmulatorAdmin, inBatches, startEmulatorChild } from './emulator.mjs';
import { median, pagesToRead, rateFloorMs, readFloorMs, writeFloorMs } from './floor.mjs';
import { manifests, prepareAccount, secretsEnv, shares, writeManifests } from './workload.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sizes = (process.env.BENCH_SIZES ?? '100,1000,3000,5000').split(',').filter(Boolean).map(Number);
const latencyMs = Number(process.env.BENCH_LATENCY_MS ?? 20);
const parallelism = 8;
const productionLimit = { requests: 300, periodMs: 5_000 };
const unlimited = '1000000/1s';
const probe = pathToFileURL(join(root, 'test/bench/probe.mjs')).href;
const resultsFile = resolve(process.env.BENCH_RESULTS ?? join(root, 'test/bench/results.json'));
const profileDir = process.env.BENCH_PROFILE_DIR ? resolve(process.env.BENCH_PROFILE_DIR) : undefined;
let profileSerial = 0;

const emulator = await startEmulatorChild(root, ['--latency', String(latencyMs), '--registry-delay', '0']);
const admin = new EmulatorAdmin(emulator.url);
const work = await mkdtemp(join(tmpdir(), 'telform-bench-'));
const rows = [];
let accountSerial = 0;
const startUpRuns = 9;
const convergedRuns = Math.max(1, Number(process.env.BENCH_CONVERGED_RUNS ?? 3));

/** The fixed cost of any command: the median wall time of `telform --version` over a few runs. */
async function measureStartUp() {
  const times = [];
  for (let i = 0; i < startUpRuns; i++) {
    const started = performance.now();
    await new Promise((resolveRun, reject) => {
      const child = spawn(process.execPath, [join(root, 'dist/cli/main.js'), '--version'], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', (status) =>
        status === 0 ? resolveRun() : reject(new Error(`telform --version exited ${status}`)),
      );
    });
    times.push(performance.now() - started);
  }
  return median(times);
}

async function freshAccount() {
  accountSerial += 1;
  const id = `MABENCH${String(accountSerial).padStart(13, '0')}`;
  return admin.addAccount(id, `bench-token-${accountSerial}-0000000000000000`);
}

/** Runs the built CLI in `cwd` against `api`; returns its wall time, requests, peak RSS and CPU. */
async function telform(api, cwd, args, { expectStatus = [0] } = {}) {
  const probeFile = join(cwd, '.probe.json');
  const timingsFile = join(cwd, '.timings.json');
  await rm(timingsFile, { force: true });
  const before = await admin.lastSeq();
  const profile = profileDir ? `${String(++profileSerial).padStart(3, '0')}-${args[0]}.cpuprofile` : undefined;
  const profileArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', profile] : [];
  const started = performance.now();
  const run = await new Promise((resolveRun, reject) => {
    const child = spawn(
      process.execPath,
      [...profileArgs, '--import', probe, join(root, 'dist/cli/main.js'), ...args],
      {
        cwd,
        env: {
          ...process.env,
          ...secretsEnv,
          ...api.env(),
          CI: '',
          NO_COLOR: '1',
          BENCH_PROBE_FILE: probeFile,
          TELFORM_TIMINGS_FILE: timingsFile,
        },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolveRun({ status, stdout, stderr }));
  });
  const wallMs = performance.now() - started;
  if (!expectStatus.includes(run.status)) {
    throw new Error(
      `telform ${args.join(' ')} exited ${run.status}\n${run.stderr.slice(-3000)}\n${run.stdout.slice(-3000)}`,
    );
  }
  const requests = await admin.requests(api.authId, before);
  const usage = JSON.parse(await readFile(probeFile, 'utf8'));
  const timings = await readFile(timingsFile, 'utf8').then(JSON.parse, () => null);
  return {
    wallMs,
    requests: requests.length,
    writes: requests.filter((request) => request.method !== 'GET').length,
    rateLimited: requests.filter((request) => request.status === 429).length,
    rssMb: usage.max_rss_kb / 1024,
    cpuMs: usage.user_ms + usage.system_ms,
    timings,
    stdout: run.stdout,
    profile,
  };
}

/**
 * The run of median wall time among `convergedRuns` runs of a command that changes nothing (a
 * converged plan or drift), with every run's wall time: one run on a shared machine varies by
 * ±15 %, more than the targets' margins.
 */
async function repeated(run) {
  const runs = [];
  for (let i = 0; i < convergedRuns; i++) runs.push(await run());
  const sorted = [...runs].sort((a, b) => a.wallMs - b.wallMs);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)], walls: runs.map((one) => round(one.wallMs / 1000)) };
}

/**
 * One row: `requestFloorMs` is what the row's requests need; a CLI run's floor adds start-up, the
 * naive reads (sent from this process) do not.
 */
function record(size, scenario, result, requestFloorMs, extra = {}) {
  const floorMs = requestFloorMs + (result.cpuMs === undefined ? 0 : startUpMs);
  const row = {
    size,
    scenario,
    wall_s: round(result.wallMs / 1000),
    requests: result.requests,
    ...(result.rateLimited === undefined ? {} : { rate_limited: result.rateLimited }),
    floor_s: round(floorMs / 1000),
    request_floor_s: round(requestFloorMs / 1000),
    ratio: floorMs > 0 ? round(result.wallMs / floorMs) : null,
    peak_rss_mb: result.rssMb === undefined ? null : Math.round(result.rssMb),
    cpu_s: result.cpuMs === undefined ? null : round(result.cpuMs / 1000),
    stages_ms: result.timings ?? null,
    ...(result.profile ? { profile: result.profile } : {}),
    ...extra,
  };
  rows.push(row);
  process.stdout.write(`${formatRow(row)}\n`);
}

const round = (value) => Math.round(value * 100) / 100;

function countsByKind(total) {
  const share = shares(total);
  return {
    SipCredential: share.sipCredentials,
    SipIpAcl: share.sipAcls,
    ApplicationSipAuth: share.bindings,
    Brand: share.brands,
    Campaign: share.campaigns,
    // PhoneNumber is read from the account's number list, counted as Number (unmanagedCounts).
    TrunkIpAcl: share.trunkAcls,
    TrunkCredential: share.trunkCredentials,
    OriginationUri: share.uris,
    Trunk: share.trunks,
  };
}

/**
 * The lists a plan reads besides the managed kinds', with what the account holds: the phone numbers
 * (trunks and campaigns count theirs), the business profiles and the applications (a new
 * account's seeded ones too).
 */
async function unmanagedCounts(api) {
  return {
    Number: (await admin.admin('GET', `accounts/${api.authId}/numbers/`)).numbers.length,
    Profile: (await api.request('GET', '/Profile/?limit=1')).meta?.total_count ?? 0,
    // ApplicationSipAuth is read from the applications list, which holds every application.
    ApplicationSipAuth: (await api.request('GET', '/Application/?limit=1')).meta?.total_count ?? 0,
  };
}

/** One GET per managed object, as a reconciler without list reads would refresh them. */
async function naiveReads(api, stateFile, width) {
  const state = JSON.parse(await readFile(stateFile, 'utf8'));
  const paths = Object.values(state.resources ?? {}).flatMap((entry) => {
    const path = objectPath(entry.kind, entry.id);
    return path ? [path] : [];
  });
  const started = performance.now();
  await inBatches(paths.length, (i) => api.request('GET', paths[i]), width);
  return { wallMs: performance.now() - started, requests: paths.length };
}

function objectPath(kind, id) {
  const paths = {
    SipCredential: `/SipAuth/Credential/${id}/`,
    SipIpAcl: `/SipAuth/IpAccessControlList/${id}/`,
    ApplicationSipAuth: `/Application/${id}/`,
    Brand: `/10dlc/Brand/${id}/`,
    Campaign: `/10dlc/Campaign/${id}/`,
    TrunkIpAcl: `/Zentrunk/IPAccessControlList/${id}/`,
    TrunkCredential: `/Zentrunk/Credential/${id}/`,
    OriginationUri: `/Zentrunk/URI/${id}/`,
    Trunk: `/Zentrunk/Trunk/${id}/`,
    Profile: `/Profile/${id}/`,
    PhoneNumber: `/Number/${id}/`,
  };
  return paths[kind];
}

async function benchSize(size) {
  const folder = join(work, `size-${size}`);
  const api = await freshAccount();
  const prepared = await prepareAccount(api, admin, size);
  // Before the first apply the managed kinds' lists are empty (one page each); afterwards they hold
  // the whole workload.
  const emptyCounts = {
    ...Object.fromEntries(Object.keys(countsByKind(size)).map((kind) => [kind, 0])),
    ...(await unmanagedCounts(api)),
  };
  const emptyReadFloor = readFloorMs({
    kinds: Object.keys(emptyCounts).length,
    pages: pagesToRead(emptyCounts),
    parallelism,
    latencyMs,
  });
  const counts = { ...countsByKind(size), ...(await unmanagedCounts(api)) };
  const kinds = Object.keys(counts).length;
  const pages = pagesToRead(counts);
  const readFloor = readFloorMs({ kinds, pages, parallelism, latencyMs });
  const first = manifests(size, prepared);
  const second = manifests(size, { ...prepared, changed: true });
  await writeManifests(join(folder, 'manifests'), first.documents);
  const state = ['--state', 'bench.state.json'];
  const noLimit = ['--rate-limit', unlimited];

  record(
    size,
    'plan, empty account',
    await telform(api, folder, ['plan', '-f', 'manifests', ...state, ...noLimit]),
    emptyReadFloor,
  );

  const created = await telform(api, folder, [
    'apply',
    '-f',
    'manifests',
    ...state,
    ...noLimit,
    '--auto-approve',
    '--wait',
    '5m',
  ]);
  record(
    size,
    'apply, create all, no limit',
    created,
    emptyReadFloor + writeFloorMs({ writes: created.writes, depth: 2, parallelism, latencyMs }),
  );

  const converged = await repeated(() => telform(api, folder, ['plan', '-f', 'manifests', ...state, ...noLimit]));
  record(size, 'plan, converged', converged, readFloor, { pages_floor: pages + kinds, walls_s: converged.walls });
  const drifted = await repeated(() => telform(api, folder, ['drift', '-f', 'manifests', ...state, ...noLimit]));
  record(size, 'drift, converged', drifted, readFloor, { walls_s: drifted.walls });
  // import takes over an account nobody owns: the bench's state hands it over first and takes it back
  // after (those hand-over commands are not measured).
  await telform(api, folder, ['state', 'release', ...state, ...noLimit]);
  record(
    size,
    'import',
    await telform(api, folder, ['import', '--out', 'imported', '--state', 'imported.state.json', ...noLimit]),
    readFloor,
  );
  await telform(api, folder, ['state', 'release', '--state', 'imported.state.json', ...noLimit]);
  await telform(api, folder, ['state', 'claim', ...state, ...noLimit]);

  const serial = await naiveReads(api, join(folder, 'bench.state.json'), 1);
  record(size, 'naive: one GET per object, serially', serial, readFloor);
  const tenWide = await naiveReads(api, join(folder, 'bench.state.json'), 10);
  record(size, 'naive: one GET per object, 10 at a time', tenWide, readFloor);

  await writeManifests(join(folder, 'manifests'), second.documents);
  const changedRun = await telform(api, folder, ['apply', '-f', 'manifests', ...state, ...noLimit, '--auto-approve']);
  record(
    size,
    'apply, 10% changed, no limit',
    changedRun,
    readFloor + writeFloorMs({ writes: changedRun.writes, depth: 1, parallelism, latencyMs }),
  );

  await writeManifests(join(folder, 'manifests'), first.documents);
  // The rate-limited rows run with the emulator holding every account to production's limit too, so
  // a client that let one request too many through would be answered 429 (the 429 column).
  await admin.admin('POST', 'faults/', { rate_limit: '300/5s' });
  const changedBack = await telform(api, folder, ['apply', '-f', 'manifests', ...state, '--auto-approve']);
  await admin.admin('POST', 'faults/', { rate_limit: 'none' });
  record(
    size,
    'apply, 10% changed, 300/5s',
    changedBack,
    Math.max(
      readFloor + writeFloorMs({ writes: changedBack.writes, depth: 1, parallelism, latencyMs }),
      rateFloorMs({ requests: changedBack.requests, limit: productionLimit, parallelism, latencyMs }),
    ),
  );

  const limitedApi = await freshAccount();
  const limitedFolder = join(work, `size-${size}-limited`);
  const limitedProfiles = await prepareAccount(limitedApi, admin, size);
  await writeManifests(join(limitedFolder, 'manifests'), manifests(size, limitedProfiles).documents);
  await admin.admin('POST', 'faults/', { rate_limit: '300/5s' });
  const limited = await telform(limitedApi, limitedFolder, [
    'apply',
    '-f',
    'manifests',
    ...state,
    '--auto-approve',
    '--wait',
    '5m',
  ]);
  await admin.admin('POST', 'faults/', { rate_limit: 'none' });
  record(
    size,
    'apply, create all, 300/5s',
    limited,
    Math.max(
      emptyReadFloor + writeFloorMs({ writes: limited.writes, depth: 2, parallelism, latencyMs }),
      rateFloorMs({ requests: limited.requests, limit: productionLimit, parallelism, latencyMs }),
    ),
  );
}

/**
 * Trunks × numbers: an account with 200 inbound trunks (and their URIs), one brand with two
 * campaigns, and 1,000 phone numbers, each attached to a trunk and half linked to a campaign. Trunks
 * and campaigns count their numbers; a plan that read the numbers per trunk or per campaign would
 * send trunks × pages requests. It must stay at the pages of each list.
 */
async function benchTrunksTimesNumbers({ trunks = 200, numbers = 1000 } = {}) {
  const folder = join(work, 'trunks-numbers');
  const api = await freshAccount();
  const doc = (kind, name, spec) =>
    `apiVersion: telform/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n${spec}\n`;
  const documents = [];
  for (let i = 0; i < trunks; i++) {
    documents.push(doc('OriginationUri', `uri-${i}`, `  uri: sip${i}.pbx.example.com:5060`));
    documents.push(doc('Trunk', `in-${i}`, `  trunk_direction: inbound\n  primary_uri_uuid: { ref: uri-${i} }`));
  }
  await writeManifests(join(folder, 'manifests'), documents);
  const state = ['--state', 'bench.state.json'];
  const noLimit = ['--rate-limit', unlimited];
  await telform(api, folder, ['apply', '-f', 'manifests', ...state, ...noLimit, '--auto-approve']);
  const ledger = JSON.parse(await readFile(join(folder, 'bench.state.json'), 'utf8'));
  const trunkIds = Object.values(ledger.resources)
    .filter((entry) => entry.kind === 'Trunk')
    .map((entry) => entry.id);
  await inBatches(numbers, (i) =>
    admin.admin('POST', `accounts/${api.authId}/numbers/`, {
      number: `1202${String(5_000_000 + i).padStart(7, '0')}`,
      app_id: trunkIds[i % trunkIds.length],
    }),
  );
  // The other kinds are empty: one page each.
  const counts = {
    ...Object.fromEntries(Object.keys(countsByKind(100)).map((kind) => [kind, 0])),
    OriginationUri: trunks,
    Trunk: trunks,
    ...(await unmanagedCounts(api)),
  };
  const kinds = Object.keys(counts).length;
  const pages = pagesToRead(counts);
  const plan = await telform(api, folder, ['plan', '-f', 'manifests', ...state, ...noLimit]);
  record(
    `${trunks}×${numbers}`,
    `plan, ${trunks} trunks × ${numbers} numbers`,
    plan,
    readFloorMs({ kinds, pages, parallelism, latencyMs }),
    { pages_floor: pages + kinds },
  );
}

function formatRow(row) {
  const cells = [
    String(row.size).padStart(8),
    row.scenario.padEnd(42),
    `${row.wall_s.toFixed(2)} s`.padStart(9),
    String(row.requests).padStart(6),
    String(row.rate_limited ?? '').padStart(4),
    `${row.floor_s.toFixed(2)} s`.padStart(9),
    row.ratio === null ? '     ' : `${row.ratio.toFixed(2)}×`.padStart(6),
    row.peak_rss_mb === null ? '      ' : `${row.peak_rss_mb} MB`.padStart(7),
    row.cpu_s === null ? '       ' : `${row.cpu_s.toFixed(2)} s`.padStart(8),
    row.stages_ms === null ? '' : stages.map((stage) => String(row.stages_ms[stage]?.cpu_ms ?? '-')).join('/'),
  ];
  return cells.join('  ');
}

const stages = ['load', 'read', 'diff', 'order', 'render'];
const header = [
  'size',
  'scenario'.padEnd(42),
  '     wall',
  'reqs',
  ' 429',
  '    floor',
  'ratio',
  'peak RSS',
  '   CPU',
  `stage CPU ms (${stages.join('/')})`,
];
const startUpMs = await measureStartUp();
process.stdout.write(
  `emulator at ${latencyMs} ms per request; ${cpus().length} cores, load average ${loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}; ` +
    `start-up (median of ${startUpRuns} × telform --version) ${(startUpMs / 1000).toFixed(2)} s, in every CLI row's floor\n`,
);
process.stdout.write(`${header.join('  ')}\n`);
try {
  for (const size of sizes) await benchSize(size);
  if (process.env.BENCH_PRODUCT !== '0') await benchTrunksTimesNumbers();
} finally {
  await emulator.close();
  await rm(work, { recursive: true, force: true });
}
const results = {
  date: new Date().toISOString(),
  node: process.version,
  cores: cpus().length,
  load_average_after: loadavg(),
  latency_ms: latencyMs,
  start_up_s: round(startUpMs / 1000),
  rows,
};
await writeFile(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(
  `load average after: ${loadavg()
    .map((v) => v.toFixed(1))
    .join(' ')}; results in ${relative(process.cwd(), resultsFile)}\n`,
);
