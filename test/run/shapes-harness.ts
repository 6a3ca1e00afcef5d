// In-process runs against an emulator serving the production shapes with a chosen variation (page sizes, list
// envelopes, create answers, rows without alias, …): the account, a temporary folder, and plan, apply and
// import as the CLI runs them, each returning what a test asserts on.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmulator, type RunningEmulator, type SeedInput } from '../../src/emulator/index.js';
import type { VariationOptions } from '../../src/emulator/variation.js';
import { applyReconciled, type ApplyRunOutcome } from '../../src/run/apply.js';
import type { GlobalOptions, RunContext } from '../../src/run/context.js';
import { importAccount, type ImportResult } from '../../src/run/import.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import type { Plan } from '../../src/engine/plan-types.js';
import { openState } from '../../src/run/state-location.js';
import type { LedgerEntry } from '../../src/state/ledger.js';
import { connect } from './harness.js';

export const shapedAccount = { authId: 'MASHAPES000000000001', authToken: 'shapes-token-000000000000000000001' };

/** The secrets of examples/full-account (demo values, for the emulator only). */
export const fullAccountSecrets = { SUPPORT_SIP_PASSWORD: 'SupportAgents77', SUPPORT_TRUNK_PASSWORD: 'Supp0rt!trunk' };

export interface ShapedRun {
  emulator: RunningEmulator;
  folder: string;
  /** Stderr lines of every run so far. */
  notes: string[];
  env: Record<string, string>;
  write(file: string, text: string): Promise<void>;
  /** Copies an example folder (relative to the repository) into the run's folder as `manifests/`. */
  copyExample(example: string): Promise<void>;
  plan(paths?: string[]): Promise<Plan>;
  apply(paths?: string[]): Promise<ApplyRunOutcome>;
  importAll(out?: string): Promise<ImportResult>;
  ledger(): Promise<Record<string, LedgerEntry>>;
  close(): Promise<void>;
}

export async function startShapedRun(
  variation: VariationOptions,
  options: { seedData?: SeedInput; env?: Record<string, string> } = {},
): Promise<ShapedRun> {
  const emulator = await startEmulator({
    shapes: 'production',
    registryDelayMs: 0,
    accounts: [{ ...shapedAccount }],
    variation,
    ...(options.seedData ? { seedData: options.seedData } : {}),
  });
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-shapes-'));
  const notes: string[] = [];
  const env = {
    TELFORM_AUTH_ID: shapedAccount.authId,
    TELFORM_AUTH_TOKEN: shapedAccount.authToken,
    ...fullAccountSecrets,
    ...options.env,
  };
  const globals: GlobalOptions = { endpoint: emulator.url, state: path.join(folder, 'telform.state.json') };
  const context = (): RunContext => ({ io: { cwd: folder, env, stderr: (line) => notes.push(line) }, connect });
  return {
    emulator,
    folder,
    notes,
    env,
    write: (file, text) => writeFile(path.join(folder, file), text),
    copyExample: (example) =>
      cp(path.join(import.meta.dirname, '../..', example), path.join(folder, 'manifests'), { recursive: true }),
    plan: async (paths = ['manifests']) => {
      const run = await reconcile({ paths }, globals, approvalsFrom({}), context(), { lock: false });
      return withReconciliation(run, async (done) => done.plan);
    },
    apply: async (paths = ['manifests']) => {
      const run = await reconcile({ paths }, globals, approvalsFrom({}), context(), { lock: true });
      return withReconciliation(run, (done) => applyReconciled(done, { parallelism: 4, waitMs: 60_000 }));
    },
    importAll: (out = 'imported') => importAccount({ kinds: [], out, layout: 'per-kind' }, globals, context()),
    ledger: async () => {
      const store = await openState({ state: globals.state as string }, {}, { lock: false });
      try {
        return { ...store.ledger.resources };
      } finally {
        await store.close();
      }
    },
    close: async () => {
      await emulator.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** The plan's changes other than no-ops, as `address action` lines. */
export function changeLines(plan: Plan): string[] {
  return plan.changes
    .filter((change) => change.action !== 'noop')
    .map((change) => `${change.address} ${change.action}`);
}
