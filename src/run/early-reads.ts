// Reads started while the manifests load (docs/performance.md, overlap): a run that takes no lock
// (plan, drift) lists the kinds its state names, and what they need, before the manifests are
// checked, so the network's wait and the load's CPU overlap. They are GETs: a manifest that fails
// validation still sends no write. A run that locks the state (apply) reads only once it holds the
// lock, so that what it plans from was read after any other apply's writes.
import type { PlannerKinds } from '../engine/model.js';
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
  for (const kind of kinds.values()) {
    if (!needs.required.has(kind.kind) && !needs.helpful.has(kind.kind)) continue;
    const list = kind.live.list(live);
    list.catch(() => undefined);
    lists.set(kind.kind, list);
  }
  return { live, lists, sentBefore };
}
