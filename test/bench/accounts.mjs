// `npm run bench:accounts`: drift over 200 accounts x 20 resources against the emulator at 20 ms per
// request, once in one process (`drift --accounts`), once with 16 accounts at once, and once as 4 shards (`--shard K/4`, four
// processes at once) merged with `report merge`; prints both times and checks that the two reports
// are identical. Then a plan of the same 200 accounts in one process, from the literal manifests and
// from one shared folder whose 20 resources take 20 values per account (the same values, so both
// plans find nothing to change and their reports match). Not a test: the figures depend on the machine.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmulatorAdmin, startEmulatorChild } from './emulator.mjs';

const root = resolve(import.meta.dirname, '../..');
const cli = join(root, 'dist/cli/main.js');
const accountCount = Number(process.env.BENCH_ACCOUNTS ?? 200);
const shards = 4;
const latencyMs = 20;

function run(args, cwd, env) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

function manifests() {
  const documents = [];
  for (let index = 0; index < 10; index += 1) {
    documents.push({
      kind: 'TrunkIpAcl',
      metadata: { name: `trunk-acl-${index}` },
      spec: { ip_addresses: [`203.0.113.${index + 1}`] },
    });
  }
  for (let index = 0; index < 5; index += 1) {
    documents.push({
      kind: 'SipIpAcl',
      metadata: { name: `sip-acl-${index}` },
      spec: { entries: [{ ip: `198.51.100.${index * 16}`, cidr_prefix: 28 }] },
    });
  }
  for (let index = 0; index < 5; index += 1) {
    documents.push({
      kind: 'OriginationUri',
      metadata: { name: `uri-${index}` },
      spec: { uri: `sip${index}.pbx.example.com:5060` },
    });
  }
  return documents.map((document) => JSON.stringify({ apiVersion: 'telform/v1', ...document })).join('\n---\n');
}

/** The same 20 resources as `manifests()`, every address and host a value (`{ value: NAME }`). */
function sharedManifests() {
  const documents = [];
  for (let index = 0; index < 10; index += 1) {
    documents.push({
      kind: 'TrunkIpAcl',
      metadata: { name: `trunk-acl-${index}` },
      spec: { ip_addresses: [{ value: `acl_ip_${index}` }] },
    });
  }
  for (let index = 0; index < 5; index += 1) {
    documents.push({
      kind: 'SipIpAcl',
      metadata: { name: `sip-acl-${index}` },
      spec: { entries: [{ ip: { value: `sip_net_${index}` }, cidr_prefix: 28 }] },
    });
  }
  for (let index = 0; index < 5; index += 1) {
    documents.push({
      kind: 'OriginationUri',
      metadata: { name: `uri-${index}` },
      spec: { uri: { value: `uri_${index}` } },
    });
  }
  return documents.map((document) => JSON.stringify({ apiVersion: 'telform/v1', ...document })).join('\n---\n');
}

/** One account's values: what `manifests()` writes literally. */
function accountValues() {
  const values = {};
  for (let index = 0; index < 10; index += 1) values[`acl_ip_${index}`] = `203.0.113.${index + 1}`;
  for (let index = 0; index < 5; index += 1) values[`sip_net_${index}`] = `198.51.100.${index * 16}`;
  for (let index = 0; index < 5; index += 1) values[`uri_${index}`] = `sip${index}.pbx.example.com:5060`;
  return values;
}

/** A report without the value lines, for comparing the plan with values to the literal one. */
function withoutValues(text) {
  const report = JSON.parse(text);
  for (const account of report.accounts) if (account.plan) delete account.plan.values;
  return JSON.stringify(report);
}

async function main() {
  const folder = await mkdtemp(join(tmpdir(), 'telform-bench-accounts-'));
  const emulator = await startEmulatorChild(root, []);
  try {
    const admin = new EmulatorAdmin(emulator.url);
    const env = { ...process.env, CI: '' };
    for (const key of Object.keys(env)) if (/^(TELFORM_|PLIVO_)/.test(key)) delete env[key];
    const accounts = [];
    for (let index = 0; index < accountCount; index += 1) {
      const name = `customer-${String(index + 1).padStart(3, '0')}`;
      const authId = `MABENCH${String(index + 1).padStart(13, '0')}`;
      const token = `bench-token-${index + 1}-0000000000000000000000`;
      await admin.addAccount(authId, token);
      const prefix = name.toUpperCase().replace('-', '_');
      env[`${prefix}_ID`] = authId;
      env[`${prefix}_TOKEN`] = token;
      accounts.push({
        name,
        manifests: ['manifests/'],
        credentials: { auth_id_env: `${prefix}_ID`, auth_token_env: `${prefix}_TOKEN` },
      });
    }
    await mkdir(join(folder, 'manifests'));
    await writeFile(join(folder, 'manifests', 'resources.yaml'), manifests());
    await writeFile(
      join(folder, 'accounts.yaml'),
      JSON.stringify({ defaults: { state: 'states/{account}.json', endpoint: emulator.url }, accounts }, null, 2),
    );
    await mkdir(join(folder, 'shared'));
    await writeFile(join(folder, 'shared', 'resources.yaml'), sharedManifests());
    const valued = accounts.map((account) => ({ ...account, manifests: ['shared/'], values: accountValues() }));
    await writeFile(
      join(folder, 'accounts-values.yaml'),
      JSON.stringify(
        { defaults: { state: 'states/{account}.json', endpoint: emulator.url }, accounts: valued },
        null,
        2,
      ),
    );

    process.stdout.write(`applying ${accountCount} accounts x 20 resources (no latency)... `);
    const applied = await run(
      ['apply', '--accounts', 'accounts.yaml', '--auto-approve', '--account-parallelism', '8', '--format', 'json'],
      folder,
      env,
    );
    if (applied.code !== 0) throw new Error(`apply failed (${applied.code}): ${applied.stderr.slice(-2000)}`);
    process.stdout.write('done\n');
    await admin.setLatency(latencyMs);

    let started = performance.now();
    const single = await run(['drift', '--accounts', 'accounts.yaml', '--format', 'json'], folder, env);
    const singleMs = performance.now() - started;
    if (single.code !== 0) throw new Error(`drift failed (${single.code}): ${single.stderr.slice(-2000)}`);

    started = performance.now();
    const wider = await run(
      ['drift', '--accounts', 'accounts.yaml', '--format', 'json', '--account-parallelism', '16'],
      folder,
      env,
    );
    const widerMs = performance.now() - started;
    if (wider.code !== 0) throw new Error(`drift failed (${wider.code}): ${wider.stderr.slice(-2000)}`);

    started = performance.now();
    const parts = await Promise.all(
      Array.from({ length: shards }, (_, index) =>
        run(
          ['drift', '--accounts', 'accounts.yaml', '--shard', `${index + 1}/${shards}`, '--format', 'json'],
          folder,
          env,
        ),
      ),
    );
    const files = [];
    for (const [index, part] of parts.entries()) {
      if (part.code !== 0) throw new Error(`shard ${index + 1} failed (${part.code}): ${part.stderr.slice(-2000)}`);
      const file = join(folder, `drift-${index + 1}.json`);
      await writeFile(file, part.stdout);
      files.push(file);
    }
    const merged = await run(['report', 'merge', ...files, '--format', 'json'], folder, env);
    const shardedMs = performance.now() - started;
    // What N machines would take: each shard alone (one after the other here), the slowest one plus the merge.
    const alone = [];
    for (let index = 0; index < shards; index += 1) {
      const began = performance.now();
      const part = await run(
        ['drift', '--accounts', 'accounts.yaml', '--shard', `${index + 1}/${shards}`, '--format', 'json'],
        folder,
        env,
      );
      alone.push(performance.now() - began);
      if (part.stdout !== parts[index].stdout) throw new Error(`shard ${index + 1} gave another report when run alone`);
    }
    const mergeStarted = performance.now();
    await run(['report', 'merge', ...files, '--format', 'json'], folder, env);
    const mergeMs = performance.now() - mergeStarted;
    started = performance.now();
    const literalPlan = await run(['plan', '--accounts', 'accounts.yaml', '--format', 'json'], folder, env);
    const literalPlanMs = performance.now() - started;
    if (literalPlan.code !== 0)
      throw new Error(`plan failed (${literalPlan.code}): ${literalPlan.stderr.slice(-2000)}`);
    started = performance.now();
    const valuesPlan = await run(['plan', '--accounts', 'accounts-values.yaml', '--format', 'json'], folder, env);
    const valuesPlanMs = performance.now() - started;
    if (valuesPlan.code !== 0)
      throw new Error(`plan with values failed (${valuesPlan.code}): ${valuesPlan.stderr.slice(-2000)}`);
    const plansAgree = withoutValues(valuesPlan.stdout) === withoutValues(literalPlan.stdout);
    const sizes = parts.map((part) => JSON.parse(part.stdout).accounts.length);
    const identical = merged.stdout === single.stdout && wider.stdout === single.stdout;
    const report = JSON.parse(single.stdout);
    console.log(
      `drift, ${accountCount} accounts x 20 resources, ${latencyMs} ms per request, --account-parallelism 4 (default)`,
    );
    console.log(`  one process:            ${(singleMs / 1000).toFixed(1)} s`);
    console.log(`  one process, 16 at once: ${(widerMs / 1000).toFixed(1)} s`);
    console.log(
      `  ${shards} shards + merge (4 processes on this machine): ${(shardedMs / 1000).toFixed(1)} s (accounts per shard: ${sizes.join(', ')})`,
    );
    console.log(
      `  each shard alone:       ${alone.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s; merge ${(mergeMs / 1000).toFixed(1)} s: on ${shards} machines about ${((Math.max(...alone) + mergeMs) / 1000).toFixed(1)} s`,
    );
    console.log(
      `  reports identical:      ${identical ? 'yes' : 'NO'} (${report.accounts.length} accounts, exit code ${report.exit_code}, ${single.stdout.length} bytes)`,
    );
    console.log(
      `plan, ${accountCount} accounts x 20 resources, ${latencyMs} ms per request, one process, --account-parallelism 4 (default)`,
    );
    console.log(`  literal manifests (one folder):             ${(literalPlanMs / 1000).toFixed(1)} s`);
    console.log(`  shared manifests with 20 values per account: ${(valuesPlanMs / 1000).toFixed(1)} s`);
    console.log(
      `  same plans:             ${plansAgree ? 'yes' : 'NO'} (${JSON.parse(valuesPlan.stdout).accounts.length} accounts, exit code ${JSON.parse(valuesPlan.stdout).exit_code})`,
    );
    if (!identical || !plansAgree) process.exitCode = 1;
  } finally {
    await emulator.close();
    await rm(folder, { recursive: true, force: true });
  }
}

await main();
