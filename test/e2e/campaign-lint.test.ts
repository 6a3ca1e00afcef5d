import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { advanceClock, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { teaBrandAndCampaign } from './examples.js';

// The 10DLC lint at the gate: a billed update of a FAILED campaign whose content has a lint error is
// refused before any request is sent, and goes through only with --allow-lint RULE.
let harness: EmulatorForCli;
let folder: string;
const state = ['--state', 'lint.json'];
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

const manifest = (alias: string, sample2: string) =>
  teaBrandAndCampaign({ brand: 'lint-brand', campaign: 'lint-campaign' }, alias, sample2);

async function billedUsd(): Promise<number> {
  return (
    (await (await fetch(`${harness.emulator.url}/__emulator/accounts/${defaultAccount.authId}/billing/`)).json()) as {
      total_usd: number;
    }
  ).total_usd;
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 500 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-lint-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('10DLC lint before a billed update', () => {
  it('refuses the update of a FAILED campaign with a lint error before any request, until --allow-lint', async () => {
    await writeFile(
      path.join(folder, 'lint.yaml'),
      manifest('please decline', 'Fabrikam Tea: your order 881 was delivered. Reply STOP to opt out.'),
    );
    expect((await cli(['apply', '-f', 'lint.yaml', ...state, '--auto-approve', '--wait', '1m'])).code).toBe(0);
    await advanceClock(harness.emulator, 1_000);
    expect((await cli(['plan', '-f', 'lint.yaml', ...state])).stdout).toMatch(
      /Campaign\/lint-campaign was declined by the registry/,
    );

    // The fix renames it (the registry passes it), but sample2 no longer says who is writing.
    await writeFile(
      path.join(folder, 'lint.yaml'),
      manifest('lint-fixed', 'Your order 881 was delivered. Reply STOP to opt out.'),
    );
    const validate = await cli(['validate', '-f', 'lint.yaml']);
    // validate warns (a campaign the account holds may predate a rule); the plan and apply refuse.
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain(
      'lint.yaml:20:12  Campaign/lint-campaign  spec.sample2: warning: the sample does not name the brand ("Fabrikam Tea"); recipients must be able to tell who is writing (10DLC lint sample-names-brand; ',
    );
    const plan = await cli(['plan', '-f', 'lint.yaml', ...state]);
    expect(plan.stdout).toContain(
      'Findings (10DLC lint and policies):\n  lint.yaml:20:12  error  sample-names-brand  Campaign/lint-campaign  spec.sample2: the sample does not name the brand ("Fabrikam Tea"); recipients must be able to tell who is writing [lint]\n',
    );
    expect(plan.stdout).toContain(
      'Approvals needed: --max-cost 15 (missing), --allow-lint sample-names-brand (missing).',
    );

    const since = harness.emulator.runtime.log.list({ type: 'request' }).length;
    const refused = await cli(['apply', '-f', 'lint.yaml', ...state, '--auto-approve', '--max-cost', '15']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'refused: Campaign/lint-campaign would be submitted to the registry with lint error sample-names-brand: the sample does not name the brand ("Fabrikam Tea"); recipients must be able to tell who is writing; fix it, or approve it with --allow-lint sample-names-brand\n',
    );
    const writes = harness.emulator.runtime.log
      .list({ type: 'request' })
      .slice(since)
      .filter((entry) => entry.method !== 'GET');
    expect(writes).toEqual([]);
    expect(await billedUsd()).toBe(0);

    const allowed = await cli([
      'apply',
      '-f',
      'lint.yaml',
      ...state,
      '--auto-approve',
      '--max-cost',
      '15',
      '--allow-lint',
      'sample-names-brand',
    ]);
    expect(allowed.code).toBe(0);
    expect(allowed.stderr).toContain('updated  Campaign/lint-campaign');
    expect(await billedUsd()).toBe(15);
  });
});
