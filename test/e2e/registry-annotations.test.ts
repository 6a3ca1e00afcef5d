import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advanceClock, emulatorForCli, runCli, type EmulatorForCli } from './cli.js';
import { teaBrandAndCampaign } from './examples.js';

// Registry refusals where the pull request is reviewed: a campaign the emulator's registry declines
// is annotated on its manifest document (and on the field the reason names), by plan and by drift.
let harness: EmulatorForCli;
let folder: string;
const state = ['--state', 'refusal.json'];
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

const manifest = teaBrandAndCampaign(
  { brand: 'refusal-brand', campaign: 'refused-campaign' },
  'please decline',
  'Fabrikam Tea: your order 881 was delivered. Reply STOP to opt out.',
);

const reason =
  'Campaign/refused-campaign was declined by the registry: CAMPAIGN_VETTING_DECLINED: The carriers declined the campaign in vetting (emulator rule: the campaign_alias or description contains "decline").';

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 500 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-refusal-'));
  await writeFile(path.join(folder, 'refusal.yaml'), manifest);
  expect((await cli(['apply', '-f', 'refusal.yaml', ...state, '--auto-approve', '--wait', '1m'])).code).toBe(0);
  await advanceClock(harness.emulator, 1_000);
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('registry refusals in CI annotations', () => {
  it('plan --format github annotates the declined campaign on its document line, and the fields its reason names', async () => {
    const plan = await cli(['plan', '-f', 'refusal.yaml', ...state, '--format', 'github']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toBe(
      [
        `::error file=refusal.yaml,line=12,col=9,title=telform registry::${reason}`,
        `::error file=refusal.yaml,line=15,col=19,title=telform registry::spec.campaign_alias: named by the registry's refusal of ${reason}`,
        `::error file=refusal.yaml,line=18,col=16,title=telform registry::spec.description: named by the registry's refusal of ${reason}`,
        'Plan: 0 to create, 0 to update, 0 to replace, 0 to delete. Cost: 0 USD. Irreversible: 0.',
        '',
      ].join('\n'),
    );
  });

  it('drift --format github and --format gitlab say the same', async () => {
    const drift = await cli(['drift', '-f', 'refusal.yaml', ...state, '--format', 'github']);
    expect(drift.stdout.split('\n')[0]).toBe(
      `::error file=refusal.yaml,line=12,col=9,title=telform registry::${reason}`,
    );
    const gitlab = JSON.parse(
      (await cli(['plan', '-f', 'refusal.yaml', ...state, '--format', 'gitlab'])).stdout,
    ) as Array<Record<string, unknown>>;
    expect(gitlab[0]).toMatchObject({
      check_name: 'telform registry',
      severity: 'major',
      description: reason,
      location: { path: 'refusal.yaml', lines: { begin: 12 } },
    });
    expect(gitlab).toHaveLength(3);
  });
});
