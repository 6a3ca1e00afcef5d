#!/usr/bin/env node
// Measures `telform validate` on 10,000 resources (target: under 1.5 s and 300 MB).
// Run with `npm run bench:validate` (builds first). It writes a generated manifest set into a
// temp folder: every kind, refs between them, 100 resources per file, then validates it
// (1) in a fresh child process, timing load + validation and reading its peak RSS, and
// (2) through the built CLI end to end, timing the whole command.
import { spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('..', import.meta.url));
const total = Number(process.env.BENCH_RESOURCES ?? 10_000);
const perFile = 100;

function resource(index) {
  const group = Math.floor(index / 10);
  const name = (kind) => `${kind}-${group}`;
  switch (index % 10) {
    case 0:
      return doc('TrunkIpAcl', name('acl'), `  ip_addresses: [203.0.113.${group % 250}, 198.51.100.0/28]`);
    case 1:
      return doc(
        'TrunkCredential',
        name('login'),
        `  username: login${group}\n  password: { fromEnv: TRUNK_PASSWORD }`,
      );
    case 2:
      return doc('OriginationUri', name('uri'), `  uri: sip${group}.pbx.example.com:5060;transport=tcp`);
    case 3:
      return doc(
        'Trunk',
        name('out'),
        `  trunk_direction: outbound\n  secure: true\n  ipacl_uuid: { ref: ${name('acl')} }\n  credential_uuid: { ref: ${name('login')} }`,
      );
    case 4:
      return doc('Trunk', name('in'), `  trunk_direction: inbound\n  primary_uri_uuid: { ref: ${name('uri')} }`);
    case 5:
      return doc('SipCredential', name('phones'), '  password: { fromEnv: SIP_PASSWORD }');
    case 6:
      return doc(
        'SipIpAcl',
        name('office'),
        `  entries:\n    - ip: 192.0.2.${group % 250}\n      cidr_prefix: 32\n      description: Office\n    - ip: 198.51.100.0\n      cidr_prefix: 28`,
      );
    case 7:
      return doc(
        'ApplicationSipAuth',
        name('app'),
        `  app_id: "${100000 + group}"\n  sip_auth_type: ip_acl_and_credential\n  ip_acl_uuid: { ref: ${name('office')} }\n  credential_uuid: { ref: ${name('phones')} }`,
      );
    case 8:
      return doc('Brand', name('brand'), `  profile_uuid: 5eed0000-0000-4000-8000-${String(group).padStart(12, '0')}`);
    default:
      return doc(
        'Campaign',
        name('campaign'),
        [
          `  brand_id: { ref: ${name('brand')} }`,
          '  vertical: RETAIL',
          '  usecase: MIXED',
          '  sub_usecases: [CUSTOMER_CARE, MARKETING]',
          '  description: Customer care conversations and monthly offers for loyalty members.',
          '  sample1: "Thanks for contacting us, an agent will reply soon. Reply STOP to opt out."',
          '  sample2: "Members save 20% this weekend with code SPRING. Reply STOP to opt out."',
          '  message_flow: Members opt in on the member page of the website and confirm by replying YES.',
          '  help_message: "Help at example.com/help or 1-800-555-0100."',
          '  optout_message: "You are unsubscribed and will receive no more messages."',
          '  subscriber_optin: true',
          '  subscriber_optout: true',
          '  subscriber_help: true',
          '  direct_lending: false',
          '  embedded_link: true',
          '  embedded_phone: false',
          '  age_gated: false',
          '  affiliate_marketing: false',
        ].join('\n'),
      );
  }
}

function doc(kind, name, spec) {
  return `apiVersion: telform/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n${spec}\n`;
}

const folder = await mkdtemp(path.join(tmpdir(), 'telform-bench-validate-'));
try {
  await mkdir(path.join(folder, 'manifests'));
  let bytes = 0;
  for (let start = 0; start < total; start += perFile) {
    const text = Array.from({ length: Math.min(perFile, total - start) }, (_, offset) => resource(start + offset)).join(
      '---\n',
    );
    bytes += text.length;
    await writeFile(path.join(folder, 'manifests', `part-${String(start / perFile).padStart(4, '0')}.yaml`), text);
  }
  process.stdout.write(
    `${total} resources in ${Math.ceil(total / perFile)} files, ${(bytes / 1024 / 1024).toFixed(1)} MB\n`,
  );

  // (1) In a fresh process: the validation alone, and the process's peak RSS.
  const probe = `
    const { loadManifests } = await import(${JSON.stringify(path.join(repository, 'dist/manifest/load.js'))});
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await loadManifests(['manifests'], { cwd: ${JSON.stringify(folder)}, env: {} });
    const used = process.cpuUsage(cpu);
    const elapsed = performance.now() - started;
    if (result.errorCount > 0 || result.model.resources.length !== ${total}) throw new Error('unexpected: ' + result.errorCount + ' errors');
    process.stdout.write(JSON.stringify({ elapsed, cpu: (used.user + used.system) / 1000, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
  `;
  const runs = [];
  for (let run = 0; run < 3; run++) {
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(child.stderr);
    runs.push(JSON.parse(child.stdout));
  }
  const best = runs.reduce((a, b) => (a.elapsed < b.elapsed ? a : b));
  const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
  process.stdout.write(
    `load + validate, wall: ${runs.map((r) => seconds(r.elapsed)).join(', ')} (best ${seconds(best.elapsed)})\n`,
  );
  // On a busy machine wall time includes waiting for a core; CPU time is the work itself.
  process.stdout.write(`load + validate, CPU (user + system): ${runs.map((r) => seconds(r.cpu)).join(', ')}\n`);
  process.stdout.write(
    `peak RSS of the validating process: ${Math.max(...runs.map((r) => r.maxRssMb)).toFixed(0)} MB\n`,
  );

  // (2) The whole command, as a user runs it.
  const started = performance.now();
  // The campaigns draw lint warnings (one line each, ~6,000 lines): room for all of them, or spawnSync
  // would kill the command at its default 1 MB and time a killed process.
  const cli = spawnSync(process.execPath, [path.join(repository, 'dist/cli/main.js'), 'validate', '-f', 'manifests'], {
    cwd: folder,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
  });
  const wall = performance.now() - started;
  if (cli.error || cli.status !== 0) {
    process.stderr.write(`${cli.error?.message ?? ''}\n${cli.stderr.slice(-3000)}\n`);
    throw new Error(`telform validate exited ${cli.status ?? cli.signal}`);
  }
  const lines = cli.stdout.trimEnd().split('\n');
  process.stdout.write(
    `telform validate -f (${total.toLocaleString('en-US')} resources), whole command: ${(wall / 1000).toFixed(2)} s, exit ${cli.status}, ${lines.length} lines of output; the last: ${lines.at(-1)}\n`,
  );
} finally {
  await rm(folder, { recursive: true, force: true });
}
