// One account as serve drives it, through the operations every command uses: a drift check is
// `reconcile` (read-only, no lock) read by `driftOf`; `--apply safe` is `reconcile` under the state
// lock (never waiting for it: another replica holding it is applying this account) and, when the
// plan needs no approval, `applyReconciled` — journaled, the same apply as `telform apply`. The
// account's connection is opened once and kept: one client, so one rate budget for the account
// across its checks, callback reads and applies.
import { TelformError } from '../util/errors.js';
import { hasChanges } from '../engine/summary.js';
import { renderApplySummary } from '../render/apply.js';
import { errorOutcome } from '../run/accounts.js';
import { applyReconciled } from '../run/apply.js';
import type { Connect, GlobalOptions, RunIo, Session } from '../run/context.js';
import { driftOf } from '../run/drift.js';
import { approvalHolds } from '../run/serve-holds.js';
import { systemClock } from '../util/clock.js';
import { readRegistryStatus } from '../run/registry-read.js';
import { approvalsFrom, reconcile, withReconciliation, type Reconciliation } from '../run/reconcile.js';
import type { ValueSet } from '../manifest/values.js';
import type { AccountCheck, DriftSeen, RegistryKind } from './model.js';
import { openState } from '../run/state-location.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { runOrigin } from '../run/history-origin.js';
import { failedCheck, planLines, reasonsToHold, registryEntries, registryReason } from './safe-plan.js';
import type { AccountWorker, SafeApplyOutcome } from './service.js';

export interface WorkerSetup {
  name: string;
  manifests: readonly string[];
  /** Values for `{ value: NAME }` in the manifests (the accounts file's, or `--values`). */
  values?: ValueSet | undefined;
  /** The account's state, workspace and endpoint (the accounts file's, or the flags'). */
  globals: GlobalOptions;
  /** Its environment: its own credentials only. */
  io: RunIo;
  connect: Connect;
  /** Requests in flight at once for an apply. */
  parallelism: number;
  /** Policy files (the accounts file's, then `--policy`): judged exactly as `apply` judges them. */
  policies?: readonly string[] | undefined;
  /**
   * Why this account cannot be looked at at all (its credential variables are missing): every check
   * reports it as the account's error, and the other accounts are watched as usual.
   */
  unavailable?: TelformError | undefined;
}

/** How long serve's records reuse one origin (a commit pulled meanwhile shows from the next minute). */
const originTtlMs = 60_000;

export function createWorker(setup: WorkerSetup): AccountWorker {
  return new OperationsWorker(setup);
}

class OperationsWorker implements AccountWorker {
  readonly name: string;
  private session: Promise<Session> | undefined;
  private opened: Session | undefined;
  private closed = false;
  /** When each resource was last seen in sync by a check of this serve. */
  private readonly inSyncAt = new Map<string, string>();
  /** Resources whose change outside telform was already reported (and recorded) since they were last in sync. */
  private readonly reported = new Set<string>();
  private originMemo: { at: number; origin: ReturnType<typeof runOrigin> } | undefined;

  constructor(private readonly setup: WorkerSetup) {
    this.name = setup.name;
  }

  get authToken(): string {
    if (this.setup.unavailable) return '';
    return this.opened?.authToken ?? this.setup.io.env.TELFORM_AUTH_TOKEN ?? this.setup.io.env.PLIVO_AUTH_TOKEN ?? '';
  }

  /** The account's one session; a failed connect is tried again on the next use. */
  private connect(): Promise<Session> {
    if (this.closed) return Promise.reject(new Error('serve is stopping'));
    const { unavailable } = this.setup;
    if (unavailable) return Promise.reject(unavailable);
    this.session ??= this.setup.connect(this.setup.globals, this.setup.io).then(
      (session) => {
        this.opened = session;
        return session;
      },
      (error: unknown) => {
        this.session = undefined;
        throw error;
      },
    );
    return this.session;
  }

  /** What an operation is given: this account's session, which the operation's close leaves open. */
  private input(): { paths: readonly string[]; values?: ValueSet } {
    return { paths: this.setup.manifests, ...(this.setup.values ? { values: this.setup.values } : {}) };
  }

  private policies(): readonly string[] {
    return this.setup.policies ?? [];
  }

  private async context() {
    const session = await this.connect();
    const kept: Session = { ...session, close: async () => undefined };
    return { session, context: { io: this.setup.io, connect: async () => kept } };
  }

  private counts(session: Session | undefined): { sent: number; limited: number } {
    return { sent: session?.client.requestsSent ?? 0, limited: session?.client.rateLimited ?? 0 };
  }

  async check(): Promise<AccountCheck> {
    const before = this.counts(this.opened);
    try {
      const { session, context } = await this.context();
      const run = await reconcile(this.input(), this.setup.globals, approvalsFrom({}), context, {
        lock: false,
        readOnly: true,
        policies: this.policies(),
      });
      return await withReconciliation(run, async () => {
        const { report } = driftOf(run);
        const windows = this.windows(
          run.plan.changes.map((change) => change.address),
          report.drifted,
        );
        const after = this.counts(session);
        if (windows.length > 0) await this.recordDrift(windows);
        return {
          ...(windows.length > 0 ? { windows } : {}),
          status: report.status,
          drifted: report.drifted,
          pending: report.pending,
          notes: report.notes,
          registry: registryEntries(run.plan),
          plan: planLines(run.plan),
          requests: after.sent - before.sent,
          rateLimited: after.limited - before.limited,
        };
      });
    } catch (error) {
      const after = this.counts(this.opened);
      return failedCheck(errorOf(error), after.sent - before.sent, after.limited - before.limited);
    }
  }

  /**
   * The changes outside telform this check sees for the first time, each with the previous check that
   * saw that resource in sync: the change was made between the two.
   */
  private windows(addresses: readonly string[], drifted: readonly string[]): DriftSeen[] {
    const now = new Date().toISOString();
    const changed = new Set(drifted);
    const seen: DriftSeen[] = [];
    for (const address of drifted) {
      if (this.reported.has(address)) continue;
      this.reported.add(address);
      const since = this.inSyncAt.get(address);
      seen.push({ address, seen_at: now, ...(since ? { since } : {}) });
    }
    for (const address of addresses) {
      if (changed.has(address)) continue;
      this.inSyncAt.set(address, now);
      this.reported.delete(address);
    }
    return seen;
  }

  /**
   * Where serve's records come from (the manifests' commit, the host and user), worked out at most once
   * a minute per account and before the state's lock is taken: asking git starts a process, and a
   * storm of callbacks would otherwise start one per registry move while holding the lock.
   */
  private origin(): ReturnType<typeof runOrigin> {
    const now = systemClock.now();
    if (!this.originMemo || now - this.originMemo.at > originTtlMs) {
      const origin = runOrigin(this.setup.io.env, this.setup.io.cwd, this.setup.manifests);
      this.originMemo = { at: now, origin };
    }
    return this.originMemo.origin;
  }

  async recordRegistry(moves: ReadonlyArray<{ address: string; from: string; status: string }>): Promise<void> {
    const origin = await this.origin();
    await this.appendHistory(async (store) => {
      for (const move of moves)
        await store.appendHistory({
          type: 'registry',
          address: move.address,
          status: move.status,
          ...(move.from ? { from: move.from } : {}),
          origin,
        });
    });
  }

  /** Appends to the state's history under its lock, briefly; a lock an apply holds skips it (the log still says what serve saw). */
  private async appendHistory(append: (store: LedgerStore) => Promise<void>): Promise<void> {
    try {
      const store = await openState({ ...this.setup.globals, lockTimeout: 2_000 }, this.setup.io.env, {
        lock: true,
        notify: () => undefined,
      });
      try {
        await append(store);
      } finally {
        await store.close();
      }
    } catch {
      // Best effort: the history misses this sighting, serve's events and log do not.
    }
  }

  /** Appends serve's sighting to the state's history (briefly taking its lock; a busy lock skips it, said in the log by the caller). */
  private async recordDrift(seen: readonly DriftSeen[]): Promise<void> {
    const origin = await this.origin();
    await this.appendHistory(async (store) => {
      const earliest = seen
        .map((item) => item.since)
        .filter((since): since is string => since !== undefined)
        .sort()[0];
      await store.appendHistory({
        type: 'drift',
        checked_at: earliest ?? (seen[0] as DriftSeen).seen_at,
        drifted: seen.map((item) => ({ address: item.address, ...(item.since ? { since: item.since } : {}) })),
        origin,
      });
    });
  }

  async readRegistry(kind: RegistryKind, id: string) {
    const before = this.counts(this.opened);
    try {
      const session = await this.connect();
      const read = await readRegistryStatus(session, kind, id);
      const after = this.counts(session);
      const counts = { requests: after.sent - before.sent, rateLimited: after.limited - before.limited };
      if (!read) return counts;
      const reason = read.registry ? registryReason(read.registry) : undefined;
      return { ...counts, entry: { status: read.status, ...(reason === undefined ? {} : { reason }) } };
    } catch (error) {
      const after = this.counts(this.opened);
      return {
        requests: after.sent - before.sent,
        rateLimited: after.limited - before.limited,
        error: errorOf(error).message,
      };
    }
  }

  async applySafe(): Promise<SafeApplyOutcome> {
    let run: Reconciliation;
    try {
      const { context } = await this.context();
      // Never wait for the lock: whoever holds it (another replica) is applying this account now.
      // The account's policies too: an error violation is a safety violation, so the plan is held.
      run = await reconcile(this.input(), { ...this.setup.globals, lockTimeout: 0 }, approvalsFrom({}), context, {
        lock: true,
        policies: this.policies(),
      });
    } catch (error) {
      if (error instanceof TelformError && error.code === 'state_locked')
        return { result: 'locked', holder: error.message };
      const { message } = errorOf(error);
      return {
        result: 'applied',
        changes: [],
        summary: `the apply could not start: ${message}`,
        failed: true,
        failures: [message],
      };
    }
    return withReconciliation(run, async (): Promise<SafeApplyOutcome> => {
      const changes = planLines(run.plan).map((line) => line.address);
      if (!hasChanges(run.plan)) {
        await applyReconciled(run, { parallelism: this.setup.parallelism, waitMs: 0 });
        return { result: 'nothing' };
      }
      // The approval rules and acknowledged drift too: serve heals only what a needs: none rule lets through.
      const reasons = [
        ...reasonsToHold(run.plan, run.judged.violations),
        ...(await approvalHolds(run, { policies: this.policies(), clock: systemClock, cwd: this.setup.io.cwd })),
      ];
      if (reasons.length > 0) return { result: 'held', changes, reasons };
      const outcome = await applyReconciled(run, {
        parallelism: this.setup.parallelism,
        waitMs: 0,
        history: { trigger: 'serve' },
      });
      switch (outcome.status) {
        case 'applied': {
          const failures = [...outcome.result.outcomes].flatMap(([address, result]) =>
            result.status === 'failed' ? [`${address}: ${result.error}`] : [],
          );
          return {
            result: 'applied',
            changes,
            summary: renderApplySummary(run.plan, outcome.result).trim(),
            failed: outcome.failed,
            ...(failures.length > 0 ? { failures } : {}),
          };
        }
        case 'refused':
          return { result: 'held', changes, reasons: outcome.violations.map((violation) => violation.message) };
        case 'no_changes':
        case 'cancelled':
          return { result: 'nothing' };
        default: {
          const never: never = outcome;
          return never;
        }
      }
    }).catch((error: unknown): SafeApplyOutcome => {
      const { message } = errorOf(error);
      return {
        result: 'applied',
        changes: [],
        summary: `the apply failed: ${message}`,
        failed: true,
        failures: [message],
      };
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    if (session) await session.then((opened) => opened.close()).catch(() => undefined);
  }
}

function errorOf(error: unknown): { code: string; message: string } {
  const outcome = errorOutcome(error);
  return outcome.error ?? { code: 'internal', message: outcome.summary };
}
