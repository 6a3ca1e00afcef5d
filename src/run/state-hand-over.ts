// The operations that hand a ledger or an account over: `state migrate` copies the ledger to another
// place and retires the source; `state claim` / `state release` move the account's ownership
// marker. The CLI parses and renders; these do the work, so tests call them in process.
import { liveContext } from '../resources/live-side.js';
import { backendFor, openStateBackend } from '../state/backends/registry.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { claimAccount, ledgerScope, releaseAccount } from '../state/ownership.js';
import { TelformError } from '../util/errors.js';
import { describeScope, sameScope, type Scope } from '../resources/ownership-scope.js';
import { readMarkerReading } from '../resources/ownership-marker.js';
import { resolveConnection } from '../api/connection.js';
import type { Ledger } from '../state/ledger.js';
import { sameEndpoint } from '../util/endpoint.js';
import type { GlobalOptions, RunContext, Session } from './context.js';
import { openState, stateLocation } from './state-location.js';

export interface Migrated {
  /** The source and the target, as their backends name them. */
  from: string;
  to: string;
  resources: number;
  serial: number;
  /** The flags that name the new place, which the retired source now points to. */
  flags: string;
}

/**
 * Copies the ledger `globals` name to `to` (a place that holds none yet; `toWorkspace` defaults to
 * the source's workspace) under both locks, then retires the source: it keeps its content, and
 * every command on it refuses, naming the new place.
 */
export async function migrateState(
  to: string,
  toWorkspace: string | undefined,
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
): Promise<Migrated> {
  const { io } = context;
  const from = stateLocation(globals, io.env);
  const target = { state: to, workspace: toWorkspace ?? from.workspace };
  const source = await openState(globals, io.env, { lock: true, notify: io.stderr });
  try {
    const backend = await openStateBackend(target, io.env);
    try {
      if (backend.location === source.file)
        throw new TelformError('bad_option', `--to names the state being migrated (${source.file})`);
      await source.copyTo(backend, globals.lockTimeout ?? 0);
      const migrated = {
        from: source.file,
        to: backend.location,
        resources: Object.keys(source.ledger.resources).length,
        serial: source.ledger.serial,
      };
      const flags = backendFor(target.state).flags(target);
      source.retire(flags);
      await source.compact();
      return { ...migrated, flags };
    } finally {
      await backend.close();
    }
  } finally {
    await source.close();
  }
}

export interface Claimed {
  state: string;
  lineage: string;
  account: string;
  /** The state owned the account (that scope of it) already: nothing changed. */
  already: boolean;
  /** The lineages of the ledgers the account (or the part claimed) was taken from. */
  from: string[];
  /** What the state owns now. */
  scope: Scope;
}

/**
 * Makes the ledger the owner of the account the credentials name, or of `scope` of it (absent:
 * the scope it has, everything for a new state), taking it from `takeOver` lineages only.
 */
export async function claimState(
  takeOver: readonly string[],
  globals: GlobalOptions,
  context: RunContext,
  scope?: Scope,
): Promise<Claimed> {
  return withAccount(globals, context, async (store, session) => {
    const result = await claimAccount(store, liveContext(session.client), session.account, takeOver, scope);
    return {
      state: store.file,
      lineage: store.ledger.lineage,
      account: session.account,
      already: result.already,
      from: result.from,
      scope: result.scope,
    };
  });
}

export interface Released {
  state: string;
  account: string;
  /** What the state still owns (a part was released), or undefined (it released everything). */
  scope: Scope | undefined;
  /** Ledger entries of the part released: forgotten, their objects left in the account. */
  forgotten: string[];
}

/** Gives up the ledger's ownership of the account, or of `part` of its scope, for another state to claim it. */
export async function releaseState(globals: GlobalOptions, context: RunContext, part?: Scope): Promise<Released> {
  return withAccount(globals, context, async (store, session) => {
    const released = await releaseAccount(store, liveContext(session.client), session.account, part);
    return { state: store.file, account: session.account, ...released };
  });
}

/** Runs `work` with the session and the locked ledger of the account the credentials name. */
async function withAccount<T>(
  globals: GlobalOptions,
  context: RunContext,
  work: (store: LedgerStore, session: Session) => Promise<T>,
): Promise<T> {
  const session = await context.connect(globals, context.io);
  try {
    const binding = { endpoint: session.endpointLabel, account: session.account };
    const store = await openState(globals, context.io.env, { binding, lock: true, notify: context.io.stderr });
    try {
      return await work(store, session);
    } finally {
      await store.close();
    }
  } finally {
    await session.close();
  }
}

/**
 * What the account's markers of this ledger claim now, when it is not what the ledger recorded
 * (another state took part of its scope over with `state claim --take-over`, or its marker went): a
 * line for `state list`, else undefined. The account is read only where the environment names a
 * connection to the ledger's own account (credentials, or `--endpoint local` asked for): a listing
 * without them, or one that cannot reach the account, shows what the ledger recorded, as before.
 */
export async function scopeInAccount(
  ledger: Ledger,
  globals: GlobalOptions,
  context: RunContext,
): Promise<string | undefined> {
  const last = ledger.ownership?.at(-1);
  if (!last || (last.action === 'release' && last.scope === undefined)) return undefined;
  try {
    const target = resolveConnection({ endpointFlag: globals.endpoint, env: context.io.env });
    if (target.kind === 'local' && target.reason !== 'requested') return undefined;
  } catch {
    return undefined;
  }
  // The notes of connecting (the embedded emulator's start) are not the listing's.
  const session = await context.connect(globals, { ...context.io, stderr: () => undefined }).catch(() => undefined);
  if (!session) return undefined;
  try {
    if (!sameEndpoint(session.endpointLabel, ledger.endpoint) || session.account !== ledger.account) return undefined;
    const markers = (await readMarkerReading(liveContext(session.client), true)).markers;
    const mine = markers.filter((marker) => marker.lineage === ledger.lineage);
    if (mine.length === 0)
      return `the account holds no marker of this state now: another state took its part over, or the marker was removed`;
    const recorded = ledgerScope(ledger);
    if (mine.some((marker) => sameScope(marker.scope, recorded))) return undefined;
    return `the account's marker of this state claims ${mine.map((marker) => describeScope(marker.scope)).join(' and ')} now: another state took the rest over`;
  } catch {
    return undefined;
  } finally {
    await session.close();
  }
}
