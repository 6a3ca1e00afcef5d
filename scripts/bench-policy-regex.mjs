#!/usr/bin/env node
// Times a policy whose matches() pattern backtracks exponentially in JavaScript's regex engine
// (`^(a+)+$`) against a hostile 30-character name (29 × "a" and "!"): `telform plan` with the
// policy, on the embedded emulator, through the built CLI. Run with `npm run bench:policy-regex`
// (builds first). It prints the wall time of the plan and of the same plan without the policy.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('..', import.meta.url));
const cli = path.join(repository, 'dist/cli/main.js');
const hostile = `${'a'.repeat(29)}!`;
const folder = await mkdtemp(path.join(tmpdir(), 'telform-bench-regex-'));
try {
  await writeFile(
    path.join(folder, 'acl.yaml'),
    `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  name: ${hostile}\n  ip_addresses: [203.0.113.10]\n`,
  );
  await writeFile(
    path.join(folder, 'policy.yaml'),
    `apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: regex\nrules:\n  - id: hostile\n    severity: warning\n    message: the name is only a's\n    expression: "!resource.name.matches('^(a+)+$')"\n`,
  );
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(TELFORM_|PLIVO_)/.test(key)));
  const time = (args) => {
    const started = process.hrtime.bigint();
    const run = spawnSync(process.execPath, [cli, 'plan', '-f', 'acl.yaml', '--no-color', ...args], {
      cwd: folder,
      env,
      encoding: 'utf8',
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (run.status !== 0 && run.status !== 2) throw new Error(`plan exited ${run.status}: ${run.stderr}`);
    return ms;
  };
  const without = time([]);
  const withPolicy = time(['--policy', 'policy.yaml']);
  console.log(`pattern ^(a+)+$ against ${JSON.stringify(hostile)} (${hostile.length} characters)`);
  console.log(`plan without the policy: ${without.toFixed(0)} ms`);
  console.log(`plan with the policy:    ${withPolicy.toFixed(0)} ms`);
} finally {
  await rm(folder, { recursive: true, force: true });
}
