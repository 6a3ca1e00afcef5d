// Rehearsal (`plan --rehearse`, `apply plan.json --rehearse`): the plan is applied to a replica of the
// account first — a fresh snapshot loaded into an emulator the caller starts — with a copy of the state,
// so that what only the account knows (a quota already used, an object someone made by hand, a link in
// the registry's hands) shows up as the API's own refusal before review. Nothing is written to the real
// account or its state: the real session only reads (the snapshot), the state is copied, and every write
// goes to the replica.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApiClient } from '../api/client.js';
import { ApiRequestError } from '../api/errors.js';
import { liveIdOf } from '../engine/change-fields.js';
import type { PlannedChange } from '../engine/plan-types.js';
import { liveContext } from '../resources/live-side.js';
import type { ChangeOutcome } from '../engine/apply.js';
import { readAccountRecords } from '../resources/account-records.js';
import { openStateBackend } from '../state/backends/registry.js';
import { fileBackendKind } from '../state/backends/file.js';
import { applyReconciled } from './apply.js';
import type { GlobalOptions, RunContext, Session } from './context.js';
import { approvalsFrom, reconcile, type ReconcileInput, type ReconcileOptions } from './reconcile.js';
import { brandsMadeInState } from './brands-made.js';
import { catalog } from '../resources/index.js';
import { snapshotDocument } from './snapshot-format.js';
import type { Rehearsal, RehearsalRefusal } from '../render/rehearsal-report.js';
import { stateLocation } from './state-location.js';
import { desiredFromPlan, readSavedPlan } from './saved-plan.js';
import { removeOnExit } from '../util/exit-cleanup.js';

/** A replica the caller started from a snapshot file: an emulator serving `account` (only the CLI starts one). */
export interface Replica {
  /** A client of the replica as the account, sharing nothing with the real session. */
  client: ApiClient;
  close(): Promise<void>;
}

export type StartReplica = (snapshotFile: string, account: string) => Promise<Replica>;

export interface RehearsalInput {
  reconcile: ReconcileInput;
  globals: GlobalOptions;
  options: Omit<ReconcileOptions, 'lock' | 'readOnly'>;
  /** How long the rehearsal waits for the replica's registry (its decisions come in milliseconds). */
  waitMs: number;
  parallelism: number;
}

/** Every gate approved: the rehearsal is about what the API does, on a replica nothing depends on. */
const rehearsalApprovals = approvalsFrom({
  allowIrreversible: ['all'],
  maxCost: Number.MAX_SAFE_INTEGER,
  maxNumbersAffected: Number.MAX_SAFE_INTEGER,
  forceDeletes: true,
  allowEmpty: true,
});

export async function rehearse(
  input: RehearsalInput,
  context: RunContext,
  startReplica: StartReplica,
): Promise<Rehearsal> {
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-rehearsal-'));
  // It holds a snapshot of the account and a copy of the state: gone on every exit, an interrupted one's too.
  const release = removeOnExit(folder);
  try {
    const real = await context.connect(input.globals, context.io);
    let identity: Pick<Session, 'endpointLabel' | 'account' | 'authToken'>;
    const takenAt = new Date().toISOString();
    try {
      identity = { endpointLabel: real.endpointLabel, account: real.account, authToken: real.authToken };
      const reading = await readAccountRecords(real.client);
      const document = snapshotDocument(
        reading,
        { takenAt, endpoint: real.endpointLabel, account: real.account },
        catalog,
        await brandsMadeInState(input.globals, context.io),
      );
      await writeFile(path.join(folder, 'account.snapshot.json'), `${JSON.stringify(document)}\n`, { mode: 0o600 });
    } finally {
      await real.close();
    }
    const statePath = path.join(folder, 'telform.state.json');
    await copyState(input.globals, context, statePath);
    const replica = await startReplica(path.join(folder, 'account.snapshot.json'), identity.account);
    try {
      // The replica answers as the account; the seal and the secrets' fingerprints are keyed as for the real one.
      const connect = async (): Promise<Session> => ({
        client: replica.client,
        ...identity,
        close: async () => undefined,
      });
      const notes: string[] = [];
      const replicaContext: RunContext = {
        ...context,
        io: { ...context.io, stderr: (line) => notes.push(line) },
        connect,
      };
      const globals: GlobalOptions = {
        ...input.globals,
        state: statePath,
        workspace: undefined,
        endpoint: undefined,
        lockTimeout: 0,
      };
      const run = await reconcile(input.reconcile, globals, rehearsalApprovals, replicaContext, {
        ...input.options,
        lock: true,
      });
      const plan = run.plan;
      const sentBefore = replica.client.requestsSent;
      let outcomes: Map<string, ChangeOutcome> = new Map();
      const refused: RehearsalRefusal[] = [];
      try {
        const outcome = await applyReconciled(run, {
          parallelism: input.parallelism,
          waitMs: input.waitMs, // Recorded in the copied state only, which is thrown away with the replica.
          history: { trigger: 'apply' },
        });
        // Gates no approval lifts (a protected resource, a policy, the lint) stop the rehearsal as they would the apply.
        if (outcome.status === 'refused') {
          for (const violation of outcome.violations)
            refused.push({
              address: violation.address ?? 'plan',
              action: 'refused by telform',
              message: violation.message,
            });
        } else if (outcome.status === 'applied') outcomes = outcome.result.outcomes;
      } finally {
        await run.close();
      }
      // The plan's estimate counts the reads of the account too; so does this count (they were made before the apply).
      const sent = replica.client.requestsSent - sentBefore + (plan.summary.api_reads ?? 0);
      const pending: string[] = [];
      for (const change of plan.changes) {
        const result = outcomes.get(change.address);
        if (result?.status === 'failed')
          refused.push({ address: change.address, action: change.action, message: result.error });
        if (result?.status === 'blocked')
          refused.push({
            address: change.address,
            action: change.action,
            message: await askTheApi(change, result.reason, replica),
          });
        if (result?.status === 'pending') pending.push(change.address);
      }
      const after = await planAfter(await afterInput(input), globals, replicaContext);
      return {
        plan,
        refused,
        pending,
        requests: { sent, estimated: plan.summary.api_requests },
        after,
        traffic: plan.summary.blast_radius,
        takenAt,
        clean: refused.length === 0 && pending.length === 0 && after.length === 0,
      };
    } finally {
      await replica.close();
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
    release();
  }
}

/**
 * A delete telform holds back because the object is still assigned to something it does not manage is
 * sent to the replica anyway, so the report carries the API's own answer (and says so when the API
 * would in fact have taken it). Only on the replica: nothing here reaches the account.
 */
async function askTheApi(change: PlannedChange, reason: string, replica: Replica): Promise<string> {
  const id = liveIdOf(change);
  const kind = catalog.get(change.kind);
  if (!change.flags.needs_unassign || id === undefined || !kind) return reason;
  try {
    await kind.live.delete(liveContext(replica.client), id, undefined);
    return `${reason} (telform holds this delete back, but the API took it on the replica)`;
  } catch (error) {
    if (error instanceof ApiRequestError) return `the API answered ${error.status}: ${error.apiMessage}`;
    return reason;
  }
}

/**
 * What the plan after the rehearsal reconciles: the same manifests, or for a saved plan what it
 * wants (its desired resources, targets and teardown), planned afresh: the saved plan itself would be
 * refused as stale once the replica changed, and an empty answer would hide a refused change.
 */
async function afterInput(input: RehearsalInput): Promise<RehearsalInput> {
  if (!('savedPlan' in input.reconcile)) return input;
  const saved = await readSavedPlan(input.reconcile.savedPlan);
  return {
    ...input,
    reconcile: { resources: desiredFromPlan(saved) },
    options: {
      ...input.options,
      ...(saved.targets && saved.targets.length > 0 ? { targets: saved.targets } : {}),
      ...(saved.destroy === true ? { destroy: true } : {}),
    },
  };
}

async function planAfter(
  input: RehearsalInput,
  globals: GlobalOptions,
  context: RunContext,
): Promise<Array<{ address: string; action: string }>> {
  const run = await reconcile(input.reconcile, globals, rehearsalApprovals, context, {
    ...input.options,
    lock: false,
    readOnly: true,
  });
  try {
    return run.plan.changes
      .filter((change) => change.action !== 'noop')
      .map((change) => ({ address: change.address, action: change.action }));
  } finally {
    await run.close();
  }
}

/** Copies the ledger (and its open journal) the run's state names into a file state at `target`; none: none. */
async function copyState(globals: GlobalOptions, context: RunContext, target: string): Promise<void> {
  const source = await openStateBackend(stateLocation(globals, context.io.env), context.io.env);
  let stored;
  try {
    stored = await source.read();
  } finally {
    await source.close();
  }
  if (stored.ledger === undefined) return;
  const serial = (JSON.parse(stored.ledger) as { serial?: unknown }).serial;
  const copy = await fileBackendKind.open({ state: target, workspace: 'default' }, context.io.env);
  try {
    await copy.lock(0);
    await copy.commit({
      ledger: stored.ledger,
      serial: typeof serial === 'number' ? serial : 0,
      expectedSerial: undefined,
      journal: stored.journal,
    });
  } finally {
    await copy.close();
  }
}
