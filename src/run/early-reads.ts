// Reads started while the manifests load (docs/performance.md, overlap): a run that takes no lock
// (plan, drift) lists the kinds its state names, and what they need, before the manifests are
// checked, so the network's wait and the load's CPU overlap. They are GETs: a manifest that fails
// validation still sends no write. A run that locks the state (apply) reads only once it holds the
// lock, so that what it plans from was read after any other apply's writes.
import { plannerKinds } from '../engine/kinds.js';
import type { PlannerKind, PlannerKinds } from '../engine/model.js';
import { neededKinds } from '../engine/needed-kinds.js';
import { catalog } from '../resources/index.js';
import { liveContext, type LiveContext, type LiveObject } from '../resources/live-side.js';
import { isEverything } from '../resources/ownership-scope.js';
import type { Ledger } from '../state/ledger.js';
import { sameEndpoint } from '../util/endpoint.js';
import type { GlobalOptions, RunContext, Session } from './context.js';
import { peekState, type PeekedState } from './scope.js';

export interface EarlyReads {
  live: LiveContext;
  /** The lists started, by kind; each promise already has a handler (its error waits for the run to need it). */
  lists: ReadonlyMap<string, Promise<LiveObject[]>>;
  /** The client's request count before these reads: the plan counts its reads from there. */
  sentBefore: number;
}

/** The session opened early and the lists started on it; neither when the run may not read early. */
interface EarlyStart {
  session?: Promise<Session>;
  reads?: Promise<EarlyReads>;
}

/**
 * Opens the session and starts the early reads when the run may read before its manifests load:
 * it takes no lock, plans from manifests for no `--target`, and the state owns the whole account.
 * A read failure waits for the run to need the list.
 */
export function startEarly(
  peeked: PeekedState,
  allowed: boolean,
  connect: () => Promise<Session>,
  kinds: PlannerKinds,
  prune: readonly string[],
): EarlyStart {
  const ledger = allowed && isEverything(peeked.scope) ? peeked.ledger : undefined;
  if (!ledger) return {};
  const session = connect();
  const reads = session.then((opened) => startEarlyReads(opened, kinds, ledger, prune));
  reads.catch(() => undefined);
  return { session, reads };
}

/**
 * Reads started by a command before the rest of it loads (`plan -f`, cli/plan.ts): the state is
 * peeked and the lists it needs are sent while the engine, the manifest loader and the renderers
 * compile, which on a small account is a good part of the run. `reconcile` takes them over once,
 * where it would have started them itself; a run that stops before that (a values file that does
 * not parse) lets them go with `release`.
 */
export interface ReadsAhead {
  /** The peeked state and what was started on it; undefined once taken. */
  take(): Promise<PeekedState & EarlyStart> | undefined;
  /** Settles once the lists are sent (or nothing was to be read): the command loads the rest of itself after. */
  sent(): Promise<void>;
  /** Closes the session opened ahead unless the run took it (then the run closes it). */
  release(): Promise<void>;
}

export function readAhead(
  globals: GlobalOptions,
  context: RunContext,
  request: { targets: readonly string[]; destroy: boolean; prune: readonly string[] },
): ReadsAhead {
  const started = peekState(globals, context.io.env).then((peeked) => ({
    ...peeked,
    ...startEarly(
      peeked,
      request.targets.length === 0 && !request.destroy,
      () => context.connect(globals, context.io),
      plannerKinds(catalog),
      request.prune,
    ),
  }));
  let taken = false;
  return {
    async sent() {
      // A failure here is the run's to report, where it takes the reads over.
      await started.then((early) => early.reads).catch(() => undefined);
    },
    take() {
      if (taken) return undefined;
      taken = true;
      return started;
    },
    async release() {
      if (taken) return;
      taken = true;
      const { session } = await started;
      await session?.then(
        (opened) => opened.close(),
        () => undefined,
      );
    },
  };
}

/** Runs a command's operation, then lets go of the reads started ahead of it that it did not take over. */
export async function withReadsAhead<T>(ahead: ReadsAhead | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    await ahead?.release();
  }
}

/**
 * Starts the list of every kind the ledger's entries need (those kinds, what they refer to, and
 * the kinds that tell of them), as `neededKinds` would pick them with no manifests: a subset of
 * what the run reads once its manifests are loaded, so no request is sent that the run would not send.
 */
function startEarlyReads(session: Session, kinds: PlannerKinds, ledger: Ledger, prune: readonly string[]): EarlyReads {
  const live = liveContext(session.client);
  const sentBefore = session.client.requestsSent;
  const needs = neededKinds({ kinds, desired: [], ledger, prune });
  const lists = new Map<string, Promise<LiveObject[]>>();
  // A state of another account (or a retired one) is refused once opened: nothing is read for it.
  const ours =
    sameEndpoint(ledger.endpoint, session.endpointLabel) && ledger.account === session.account && !ledger.retired;
  if (!ours || needs.required.size === 0) return { live, lists, sentBefore };
  for (const kind of largestFirst(kinds, ledger)) {
    if (!needs.required.has(kind.kind) && !needs.helpful.has(kind.kind)) continue;
    const list = kind.live.list(live);
    list.catch(() => undefined);
    lists.set(kind.kind, list);
  }
  return { live, lists, sentBefore };
}

/**
 * The kinds by how many objects the state holds of each, most first (ties in catalog order). Their
 * first pages go out in that order and each list queues the rest of its pages when its first page
 * answers, so the longest lists are read first and land early: what is done with a list when it
 * lands (its objects' forms for the plan) overlaps the reads of the others, instead of all the long
 * lists landing together at the end.
 */
function largestFirst(kinds: PlannerKinds, ledger: Ledger): PlannerKind[] {
  const held = new Map<string, number>();
  for (const entry of Object.values(ledger.resources)) held.set(entry.kind, (held.get(entry.kind) ?? 0) + 1);
  return [...kinds.values()]
    .map((kind, index) => ({ kind, index }))
    .sort((a, b) => (held.get(b.kind.kind) ?? 0) - (held.get(a.kind.kind) ?? 0) || a.index - b.index)
    .map(({ kind }) => kind);
}
