// Reads started while the manifests load (docs/performance.md, overlap): a run that takes no lock
// (plan, drift) lists the kinds its state names, and what they need, before the manifests are
// checked, so the network's wait and the load's CPU overlap. They are GETs: a manifest that fails
// validation still sends no write. A run that locks the state (apply) reads only once it holds the
// lock, so that what it plans from was read after any other apply's writes.
import type { PlannerKind, PlannerKinds } from '../engine/model.js';
import { neededKinds } from '../engine/needed-kinds.js';
import { liveContext, type LiveContext, type LiveObject } from '../resources/live-side.js';
import type { Ledger } from '../state/ledger.js';
import { sameEndpoint } from '../util/endpoint.js';
import type { Session } from './context.js';

interface EarlyReads {
  live: LiveContext;
  /** The lists started, by kind; each promise already has a handler (its error waits for the run to need it). */
  lists: ReadonlyMap<string, Promise<LiveObject[]>>;
  /** The client's request count before these reads: the plan counts its reads from there. */
  sentBefore: number;
}

/**
 * Starts the list of every kind the ledger's entries need (those kinds, what they refer to, and
 * the kinds that tell of them), as `neededKinds` would pick them with no manifests: a subset of
 * what the run reads once its manifests are loaded, so no request is sent that the run would not send.
 */
export function startEarlyReads(session: Session, kinds: PlannerKinds, ledger: Ledger, prune: readonly string[]): EarlyReads {
  const live = liveContext(session.client);
  const sentBefore = session.client.requestsSent;
  const needs = neededKinds({ kinds, desired: [], ledger, prune });
  const lists = new Map<string, Promise<LiveObject[]>>();
  // A state of another account (or a retired one) is refused once opened: nothing is read for it.
  const ours = sameEndpoint(ledger.endpoint, session.endpointLabel) && ledger.account === session.account && !ledger.retired;
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
  return [...kinds.values()].map((kind, index) => ({ kind, index })).sort((a, b) => (held.get(b.kind.kind) ?? 0) - (held.get(a.kind.kind) ?? 0) || a.index - b.index).map(({ kind }) => kind);
}
