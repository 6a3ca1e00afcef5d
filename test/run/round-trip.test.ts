// Property test of the round trip on production-shaped accounts: for a generated account (the emulator's
// production objects plus a generated seed of held objects: legacy values, omitted fields, numbers in every
// link status), `import` writes manifests for every object that `validate` accepts, whose plan creates, deletes
// and replaces nothing; one apply of the imported secrets converges, and the next plan is empty. In process (src/run
// operations against an in-process emulator); each case's seed is written beside its manifests and printed
// by fast-check with the run's seed when a case fails.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startEmulator, type SeedInput } from '../../src/emulator/index.js';
import { findingProblem, lintCampaigns } from '../../src/manifest/campaign-lint.js';
import { loadManifests } from '../../src/manifest/load.js';
import { formatProblem } from '../../src/manifest/report.js';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions, RunContext } from '../../src/run/context.js';
import { importAccount } from '../../src/run/import.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { connect } from './harness.js';
import { heldAccount } from './held-account.js';

const account = { authId: 'MAROUNDTRIP000000001', authToken: 'round-trip-token-00000000000000000' };
/** Meets every password rule of the kinds that have one (5–20 characters, a special one, upper, lower, digit). */
const password = 'Rt9!secretPw1';

/** The changes of a plan by action, as `Kind/name action` lines (readable in a failure). */
function changesOf(
  plan: { changes: Array<{ address: string; action: string }> },
  actions: readonly string[],
): string[] {
  return plan.changes
    .filter((change) => actions.includes(change.action))
    .map((change) => `${change.address} ${change.action}`);
}

async function roundTrip(seed: SeedInput): Promise<void> {
  const emulator = await startEmulator({
    shapes: 'production',
    registryDelayMs: 0,
    accounts: [account],
    seedData: seed,
  });
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-round-trip-'));
  try {
    // The case's seed beside its manifests: `telform emulator --shapes production --seed seed.yaml` replays it.
    await writeFile(path.join(folder, 'seed.yaml'), stringify(seed));
    const notes: string[] = [];
    const contextOf = (env: Record<string, string>): RunContext => ({
      io: { cwd: folder, env, stderr: (line) => notes.push(line) },
      connect,
    });
    const env = { TELFORM_AUTH_ID: account.authId, TELFORM_AUTH_TOKEN: account.authToken };
    const globals: GlobalOptions = { endpoint: emulator.url, state: path.join(folder, 'telform.state.json') };

    const imported = await importAccount({ kinds: [], out: 'imported', layout: 'per-kind' }, globals, contextOf(env));
    // What the account holds is a fact: a held value kept unchanged is never an error, so nothing is left out.
    expect(
      imported.refused.map((object) => `${object.address} (${object.id}): ${object.reason}`),
      'objects the import left out',
    ).toEqual([]);

    // `telform validate -f imported/`: the loader's problems and the 10DLC lint's errors.
    const loaded = await loadManifests(['imported'], { cwd: folder });
    const lint = lintCampaigns(loaded.model.resources).map(findingProblem);
    const errors = [...loaded.problems, ...lint].filter((problem) => problem.severity === 'error').map(formatProblem);
    expect(errors, 'validate of the imported folder').toEqual([]);

    const secrets = Object.fromEntries(
      imported.imported.flatMap((resource) => Object.values(resource.secretVariables)).map((name) => [name, password]),
    );
    const withSecrets = { ...env, ...secrets };
    const first = await reconcile({ paths: ['imported'] }, globals, approvalsFrom({}), contextOf(withSecrets), {
      lock: false,
    });
    await withReconciliation(first, async (run) => {
      expect(changesOf(run.plan, ['create', 'delete', 'replace']), 'the first plan after the import').toEqual([]);
    });

    const apply = await reconcile({ paths: ['imported'] }, globals, approvalsFrom({}), contextOf(withSecrets), {
      lock: true,
    });
    const outcome = await withReconciliation(apply, (run) => applyReconciled(run, { parallelism: 4, waitMs: 0 }));
    // Setting the secrets is the apply's only work; an account that holds none has nothing to apply.
    expect(outcome.status, `apply of the imported secrets: ${notes.join(' | ')}`).toBe(
      Object.keys(secrets).length > 0 ? 'applied' : 'no_changes',
    );

    const last = await reconcile({ paths: ['imported'] }, globals, approvalsFrom({}), contextOf(withSecrets), {
      lock: false,
    });
    await withReconciliation(last, async (run) => {
      expect(
        run.plan.changes
          .filter((change) => change.action !== 'noop')
          .map((change) => `${change.address} ${change.action}`),
        'the plan after one apply',
      ).toEqual([]);
    });
  } finally {
    await emulator.close();
    await rm(folder, { recursive: true, force: true });
  }
}

describe('the round trip on production-shaped accounts', () => {
  it('import → validate (0 errors) → plan (no create, delete, replace) → apply of the secrets → plan empty', async () => {
    // Few runs: each case is a whole account (the emulator's 300 production numbers included).
    await fc.assert(fc.asyncProperty(heldAccount, roundTrip), { numRuns: 4, endOnFailure: true });
  }, 240_000);
});
