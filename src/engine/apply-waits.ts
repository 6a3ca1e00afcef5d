import type { Clock } from '../util/clock.js';
import type { LiveContext, LiveObject } from '../resources/live-side.js';
import { isReference, type DesiredResource, type PlannerKind } from './model.js';
import type { PlannedChange } from './plan-types.js';

/**
 * The two waits of `apply --wait`, both polling the registry with backoff: before a change, for the
 * resources it refers to (a campaign for its brand, a number for its campaign); after a write, for
 * the object's own asynchronous work (a number's campaign link).
 */

export interface WaitOptions {
  /** `--wait`; 0: do not wait. */
  waitMs: number;
  clock: Clock;
  onWaiting?: (on: string, status: string, elapsedMs: number) => void;
}

export type WaitOutcome =
  | { status: 'done'; id: string }
  | { status: 'failed'; error: string }
  | { status: 'skipped'; reason: string }
  | { status: 'pending'; reason: string };

type Poll =
  { state: 'ready' } | { state: 'failed'; live: LiveObject | undefined } | { state: 'timeout'; status: string };

/** Reads `id` until `kind` says ready or failed, or until the wait is over. */
async function poll(
  kind: PlannerKind,
  id: string,
  on: string,
  context: LiveContext,
  options: WaitOptions,
): Promise<Poll> {
  const readiness = kind.live.readiness ?? (() => 'ready' as const);
  const started = options.clock.now();
  let delay = 1_000;
  for (;;) {
    const live = await kind.live.read(context, id);
    const state = live ? readiness(live) : 'failed';
    if (state === 'ready') return { state };
    if (state === 'failed') return { state, live };
    const status = live?.registry?.registration_status ?? 'PROCESSING';
    const elapsed = options.clock.now() - started;
    options.onWaiting?.(on, status, elapsed);
    if (elapsed + delay > options.waitMs) return { state: 'timeout', status };
    await options.clock.sleep(delay);
    delay = Math.min(delay * 2, 30_000);
  }
}

/**
 * Waits until every target of `desired` with a registry status is approved. Returns an outcome
 * when the change cannot go on now, undefined when it can.
 */
export async function waitForTargets(
  kind: PlannerKind,
  desired: DesiredResource,
  kinds: ReadonlyMap<string, PlannerKind>,
  ids: ReadonlyMap<string, string>,
  context: LiveContext,
  options: WaitOptions,
): Promise<WaitOutcome | undefined> {
  for (const { field, target } of kind.references) {
    const value = desired.spec[field];
    if (!isReference(value)) continue;
    const targetKind = kinds.get(target);
    if (!targetKind?.live.readiness) continue;
    const address = `${target}/${value.ref}`;
    const id = ids.get(address);
    if (!id) return { status: 'skipped', reason: `${address} does not exist` };
    if (options.waitMs <= 0)
      return {
        status: 'pending',
        reason: `waits for ${address} to be approved by the registry; run apply again later (or use --wait)`,
      };
    const result = await poll(targetKind, id, address, context, options);
    if (result.state === 'failed') return { status: 'skipped', reason: `${address} was declined by the registry` };
    if (result.state === 'timeout')
      return {
        status: 'pending',
        reason: `${address} was still ${result.status} after the wait; run apply again later`,
      };
  }
  return undefined;
}

/**
 * After a write to an object whose kind `followsReadiness` (a number being linked): with `--wait`,
 * follows it until ready (done) or failed (failed, with the registry's reason, retried only by a
 * later apply). Without `--wait`, or for other kinds, the write is done; the next plan shows the outcome.
 */
export async function followReadiness(
  change: PlannedChange,
  kind: PlannerKind,
  id: string,
  context: LiveContext,
  options: WaitOptions,
): Promise<WaitOutcome> {
  if (!kind.live.followsReadiness || !kind.live.readiness || options.waitMs <= 0) return { status: 'done', id };
  const result = await poll(kind, id, 'its registration', context, options);
  if (result.state === 'ready') return { status: 'done', id };
  if (result.state === 'timeout')
    return {
      status: 'pending',
      reason: `${change.address} was still ${result.status} after the wait; run apply again later`,
    };
  const status = result.live?.registry?.registration_status ?? 'gone';
  const reason = result.live?.registry?.error_reason;
  return {
    status: 'failed',
    error: `${change.address}: the registry answered ${status}${reason ? ` (${reason})` : ''}; a later apply tries again`,
  };
}
