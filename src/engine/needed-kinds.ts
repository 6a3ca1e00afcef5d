// Which kinds a run reads (docs/real-accounts.md): the kinds its manifests, its state and their
// references need, and, for the plan's flags, the kinds that refer to those. A kind nothing needs is
// not listed at all, so a product the account lacks stops only what needs it.
import { ApiRequestError } from '../api/errors.js';
import type { LiveContext, LiveObject } from '../resources/live-side.js';
import type { Ledger } from '../state/ledger.js';
import { TelformError } from '../util/errors.js';
import type { DesiredResource, PlannerKind, PlannerKinds } from './model.js';
import type { SpecForms } from './spec-forms.js';

/**
 * Who needs a kind, described only when an error names it: a document's place costs its file's
 * positions, and a run of thousands of resources names none of them unless a list is refused.
 */
type NeededBy = () => string;

/** What a run must read, and why. */
export interface KindNeeds {
  /** Kind → who needs it (a document's address and place, or a state entry): its list must be read. */
  required: ReadonlyMap<string, readonly NeededBy[]>;
  /** Kinds read for what they tell of the required ones (who uses them, numbers a change breaks): a list refused 403 is skipped. */
  helpful: ReadonlySet<string>;
}

export interface NeedInputs {
  kinds: PlannerKinds;
  desired: readonly DesiredResource[];
  ledger: Ledger;
  /** `--target` addresses: only they and what they refer to are needed (the state's other resources are not looked at). */
  targets?: readonly string[];
  /** `--prune-unmanaged` kinds: their unmanaged objects are deleted, so they are read. */
  prune?: readonly string[];
}

function whoOf(resource: DesiredResource): NeededBy {
  return () =>
    resource.source ? `${resource.address} (${resource.source.file}:${resource.source.line})` : resource.address;
}

/** The descriptions of who needs a kind, once each. */
export function describeNeeds(neededBy: readonly NeededBy[]): string[] {
  return [...new Set(neededBy.map((who) => who()))];
}

/** The kinds a run needs, in catalog order. */
export function neededKinds(inputs: NeedInputs): KindNeeds {
  const required = new Map<string, NeededBy[]>();
  const need = (kind: string, who: NeededBy): void => {
    if (!inputs.kinds.has(kind)) return;
    const list = required.get(kind);
    if (list) list.push(who);
    else required.set(kind, [who]);
  };
  const targets = new Set(inputs.targets ?? []);
  const targeted = (address: string): boolean => targets.size === 0 || targets.has(address);
  for (const resource of inputs.desired) if (targeted(resource.address)) need(resource.kind, whoOf(resource));
  for (const [address, entry] of Object.entries(inputs.ledger.resources))
    if (targeted(address)) need(entry.kind, () => `${address} (in the state)`);
  for (const kind of inputs.prune ?? []) need(kind, () => `--prune-unmanaged ${kind}`);
  // What a needed kind refers to is needed too (its literal ids and refs are judged against the live objects).
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, who] of [...required]) {
      for (const { target } of inputs.kinds.get(name)?.references ?? []) {
        if (!required.has(target) && inputs.kinds.has(target)) {
          required.set(target, [...who]);
          grew = true;
        }
      }
    }
  }
  // Who refers to a needed kind, transitively: deleting an ACL breaks the trunks using it, and those the numbers on them.
  const helpful = new Set<string>();
  const refersTo = (kind: PlannerKind, targetsOf: (name: string) => boolean) =>
    kind.references.some(({ target }) => targetsOf(target));
  for (let grew = true; grew;) {
    grew = false;
    for (const kind of inputs.kinds.values()) {
      if (required.has(kind.kind) || helpful.has(kind.kind)) continue;
      if (refersTo(kind, (target) => required.has(target) || helpful.has(target))) {
        helpful.add(kind.kind);
        grew = true;
      }
    }
  }
  // What carries calls or messages (the numbers) is what a change's blast radius counts: read whenever anything else is.
  const carriesTraffic = (kind: PlannerKind) =>
    kind.traffic?.calls !== undefined || kind.traffic?.messages !== undefined;
  for (const kind of inputs.kinds.values())
    if (required.size > 0 && carriesTraffic(kind) && !required.has(kind.kind)) helpful.add(kind.kind);
  for (const kind of inputs.kinds.values())
    if (kind.live.alwaysRead && !required.has(kind.kind)) helpful.add(kind.kind);
  return { required, helpful };
}

export interface LiveRead {
  /** The lists read, by kind (a kind not read is absent). */
  live: Map<string, LiveObject[]>;
  /** One sentence per helpful kind skipped because the account does not have its product. */
  notes: string[];
}

/** "not enabled" and its like: the account does not have the product, so the list is refused. */
function refusedProduct(error: unknown): error is ApiRequestError {
  return error instanceof ApiRequestError && error.status === 403;
}

/**
 * Lists the needed kinds (whole, concurrently). A required kind whose list the account refuses (403:
 * its product is not enabled) is one error naming the product and every document that needs it; a
 * helpful one is skipped with a note. Any other failure fails the read (never a partial view).
 * `started` holds lists already under way (read while the manifests loaded), by kind. As each
 * required list lands, its objects' fingerprints and comparable forms are made in `forms`.
 */
export async function readNeeded(
  kinds: PlannerKinds,
  needs: KindNeeds,
  context: LiveContext,
  started: ReadonlyMap<string, Promise<LiveObject[]>> = new Map(),
  forms?: SpecForms,
): Promise<LiveRead> {
  const wanted = [...kinds.values()].filter((kind) => needs.required.has(kind.kind) || needs.helpful.has(kind.kind));
  const results = await Promise.all(
    wanted.map(async (kind) => {
      try {
        const objects = await (started.get(kind.kind) ?? kind.live.list(context));
        // The objects a plan may diff are worked out while the other lists are still on their way.
        // A failure is left to the planner, which makes the form again where it always did.
        if (forms && needs.required.has(kind.kind)) await forms.prepareLive(objects, kind).catch(() => undefined);
        return { kind, objects, refused: undefined };
      } catch (error) {
        if (refusedProduct(error)) return { kind, objects: undefined, refused: error };
        throw error;
      }
    }),
  );
  const live = new Map<string, LiveObject[]>();
  const notes: string[] = [];
  const blocked = new Map<string, { error: ApiRequestError; kinds: string[]; who: string[] }>();
  for (const result of results) {
    if (result.objects) {
      live.set(result.kind.kind, result.objects);
      continue;
    }
    const product = result.kind.live.product ?? result.kind.kind;
    const neededBy = needs.required.get(result.kind.kind);
    if (!neededBy) {
      notes.push(
        `${result.kind.kind} was not read: the account does not have ${product} or may not read that list (the API answered 403 to ${result.refused.request.method} ${result.refused.request.path}: ${result.refused.apiMessage}), and nothing in the manifests or the state uses it`,
      );
      continue;
    }
    const entry = blocked.get(product) ?? { error: result.refused, kinds: [], who: [] };
    entry.kinds.push(result.kind.kind);
    for (const item of describeNeeds(neededBy)) if (!entry.who.includes(item)) entry.who.push(item);
    blocked.set(product, entry);
  }
  const [first] = [...blocked];
  if (first) {
    const [product, { error, kinds: refusedKinds, who }] = first;
    throw new TelformError(
      'product_not_enabled',
      `the account does not have ${product} (the API answered 403 to ${error.request.method} ${error.request.path}: ${error.apiMessage}), and ${who.join(', ')} need${who.length === 1 ? 's' : ''} it (${refusedKinds.join(', ')}); enable ${product} on the account, or remove ${who.length === 1 ? 'that document' : 'those documents'}`,
      { details: { product, kinds: refusedKinds, needed_by: who, status: 403 } },
    );
  }
  return { live, notes };
}
