// Blast radius: the traffic each change of a plan breaks, counted from the live account.
//
// The plan is compared as two worlds, before and after, by what the kinds declare of their traffic
// (resources/traffic.ts; this file names no kind and no field). An object that carries calls (a phone
// number) whose calls were answered before and are not after (detached, or what it points at deleted,
// disabled or left with nothing to answer through) counts once, against the change that broke it; the
// same for an object's messages (its link cleared, or what it links to deleted or replaced); and a caller
// that must be let in (an outbound trunk's PBX, an application's SIP callers) counts when what let it in
// is deleted, swapped, loses members or changes its credential. An object re-pointed to another working
// target is answered in both worlds and counts nothing.
import { isReference, type DesiredResource, type LiveModel, type PlannerKind } from './model.js';
import type { ChangeDraft } from './change-draft.js';
import type { BlastRadius } from './plan-types.js';
import type { ReferenceIndex } from './references.js';
import type { LiveObject } from '../resources/live-side.js';
import type { Admission, Authentication } from '../resources/traffic.js';

export interface BlastInputs {
  changes: readonly ChangeDraft[];
  live: LiveModel;
  kinds: ReadonlyMap<string, PlannerKind>;
  desiredByAddress: ReadonlyMap<string, DesiredResource>;
  references: ReferenceIndex;
}

type Phase = 'before' | 'after';
/** Why something stops working after the plan: the address of the change responsible. */
type Verdict = { ok: true } | { ok: false; cause: string | undefined };
const fine: Verdict = { ok: true };

/** Actions whose desired spec the account will hold once the plan is applied. */
const applied = new Set(['create', 'update', 'replace', 'wait']);

/**
 * Sets `blast` on every change that breaks something (nothing on the others). Pure: it reads only
 * the live model and the plan. Each broken number or trunk is counted against one change, the
 * one that breaks it, so the plan's totals are sums.
 */
export function measureBlastRadius(inputs: BlastInputs): void {
  const world = new World(inputs);
  const radius = new Map<
    string,
    { calls: number; messages: number; numbers: Set<string>; trunks: Set<string>; applications: Set<string> }
  >();
  const at = (cause: string | undefined) => {
    if (cause === undefined || !world.changes.has(cause)) return undefined;
    let entry = radius.get(cause);
    if (!entry)
      radius.set(
        cause,
        (entry = { calls: 0, messages: 0, numbers: new Set(), trunks: new Set(), applications: new Set() }),
      );
    return entry;
  };
  // A plan that changes nothing (each change a no-op or an adoption, with no secret to send) leaves
  // the world after it equal to the world before: no call stops being answered and no caller stops
  // being let in, so those walks, which compare the two worlds, are left out (a converged plan of
  // thousands of resources spent most of this function on them). A messaging link is still judged:
  // one the account holds that names nothing counts against its own change, whatever the plan does.
  const changesNothing = inputs.changes.every(
    (change) =>
      (change.action === 'noop' || change.action === 'adopt') && Object.keys(change.secrets ?? {}).length === 0,
  );
  for (const kind of inputs.kinds.values()) {
    const traffic = kind.traffic;
    if (!traffic) continue;
    const objects = inputs.live.get(kind.kind) ?? [];
    for (const object of objects) {
      const carrier = `${kind.kind}/${object.id}`;
      const call =
        traffic.calls === undefined || changesNothing ? undefined : world.brokenCalls(kind, traffic.calls, object);
      const callEntry = call && at(call.cause);
      if (callEntry) {
        callEntry.calls += 1;
        callEntry.numbers.add(carrier);
      }
      const message = traffic.messages === undefined ? undefined : world.brokenMessages(kind, traffic.messages, object);
      const messageEntry = message && at(message.cause);
      if (messageEntry) {
        messageEntry.messages += 1;
        messageEntry.numbers.add(carrier);
      }
    }
    const authentication = traffic.authenticates;
    if (!authentication || changesNothing) continue;
    for (const object of objects) {
      if (authentication.when && !authentication.when(object.spec)) continue;
      const address = world.addressOf(kind.kind, object.id);
      const name = authentication.counted.as ? authentication.counted.as(object.id) : address;
      for (const cause of world.lostAuthentication(kind, authentication, object, address))
        at(cause)?.[authentication.counted.in].add(name);
    }
  }
  for (const change of inputs.changes) {
    const entry = radius.get(change.address);
    if (!entry) continue;
    const blast: BlastRadius = {
      calls: entry.calls,
      messages: entry.messages,
      numbers: entry.numbers.size,
      trunks: [...entry.trunks].sort(),
      applications: [...entry.applications].sort(),
    };
    change.blast = blast;
  }
}

/** The kind a reference field of `kind` points at; undefined when it is no reference field. */
function targetKindOf(kind: PlannerKind, field: string): string | undefined {
  return kind.references.find((reference) => reference.field === field)?.target;
}

/** The account before the plan (the live model) and after it (the live model with the plan's changes). */
class World {
  readonly changes = new Map<string, ChangeDraft>();
  private readonly liveByAddress = new Map<string, LiveObject>();

  constructor(private readonly inputs: BlastInputs) {
    for (const change of inputs.changes)
      if (!this.changes.has(change.address)) this.changes.set(change.address, change);
    for (const [kind, objects] of inputs.live)
      for (const object of objects) this.liveByAddress.set(this.addressOf(kind, object.id), object);
  }

  /** `Kind/name` of a managed object, `Kind/#id` of any other. */
  addressOf(kind: string, id: string): string {
    const name = this.inputs.references.nameOf(kind, id);
    return name === undefined ? `${kind}/#${id}` : `${kind}/${name}`;
  }

  /** The change that deletes the object at `address` (a delete, or the old half of a replace of a live id). */
  private removal(address: string): ChangeDraft | undefined {
    const change = this.changes.get(address);
    return change?.action === 'delete' ? change : undefined;
  }

  private exists(address: string, phase: Phase): boolean {
    if (phase === 'before') return this.liveByAddress.has(address);
    if (this.removal(address)) return false;
    return this.liveByAddress.has(address) || this.inputs.desiredByAddress.has(address);
  }

  /** The spec of the object at `address` in a phase; undefined when it does not exist then. */
  spec(address: string, phase: Phase): Readonly<Record<string, unknown>> | undefined {
    const live = this.liveByAddress.get(address);
    if (phase === 'before') return live?.spec;
    if (this.removal(address)) return undefined;
    const change = this.changes.get(address);
    const desired = this.inputs.desiredByAddress.get(address);
    if (desired && (!live || (change && applied.has(change.action)))) return desired.spec;
    return live?.spec;
  }

  /** Where a reference field points in a phase: an address (`{ ref }` or a live id) or undefined. */
  private target(kind: string, value: unknown, phase: Phase): string | undefined {
    if (isReference(value)) return `${kind}/${value.ref}`;
    if (typeof value !== 'string' || value === '') return undefined;
    // A live id of an object replaced by this plan names the old object, which the plan deletes.
    const address = this.addressOf(kind, value);
    const change = this.changes.get(address);
    if (phase === 'after' && change?.action === 'replace' && 'id' in change && change.id === value)
      return `${address}#replaced`;
    return address;
  }

  /**
   * Whether the object at `address` (of `kindName`) answers calls in a phase (its kind's `answers`),
   * and if not after the plan, which change broke it. `seen` holds the objects asked already on this
   * path, so that routes that loop end.
   */
  private answers(kindName: string, address: string, phase: Phase, seen: ReadonlySet<string> = new Set()): Verdict {
    if (address.endsWith('#replaced')) return { ok: false, cause: address.replace(/#replaced$/, '') };
    const spec = this.spec(address, phase);
    const change = this.changes.get(address);
    if (!spec) return { ok: false, cause: change?.address };
    const kind = this.inputs.kinds.get(kindName);
    const answering = kind?.traffic?.answers;
    if (!kind || !answering) return fine;
    if (!answering.when(spec)) return { ok: false, cause: change?.address };
    if (answering.through.length === 0) return fine;
    const path = new Set([...seen, address]);
    const through = answering.through.map((field) => {
      const targetKind = targetKindOf(kind, field);
      return { targetKind, target: targetKind === undefined ? undefined : this.target(targetKind, spec[field], phase) };
    });
    for (const { targetKind, target } of through) {
      if (
        targetKind !== undefined &&
        target !== undefined &&
        !path.has(target) &&
        this.answers(targetKind, target, phase, path).ok
      )
        return fine;
    }
    // Nothing to answer through: the first route's change broke it, or else its own.
    const first = through[0]?.target;
    const firstChange = first === undefined ? undefined : this.changes.get(first.replace(/#replaced$/, ''));
    return { ok: false, cause: firstChange?.address ?? change?.address };
  }

  /** Whether calls to `object` (through its `field`) are answered in a phase, and if not, which change broke them. */
  private callsAnswered(kind: PlannerKind, field: string, object: LiveObject, phase: Phase): Verdict {
    const address = this.addressOf(kind.kind, object.id);
    const spec = this.spec(address, phase);
    const own = this.changes.get(address)?.address;
    const value = spec?.[field];
    if (value === undefined) return { ok: false, cause: own };
    const targetKind = targetKindOf(kind, field);
    if (targetKind === undefined) return fine;
    // An id that names nothing of that kind (an application) is answered as long as it stays set.
    if (!isReference(value) && !this.liveByAddress.has(this.addressOf(targetKind, String(value)))) return fine;
    const target = this.target(targetKind, value, phase);
    if (target === undefined) return { ok: false, cause: own };
    const verdict = this.answers(targetKind, target, phase);
    return verdict.ok ? fine : { ok: false, cause: verdict.cause ?? own };
  }

  /** The change that stops calls to an object the account answers now; undefined when none does. */
  brokenCalls(kind: PlannerKind, field: string, object: LiveObject): { cause: string | undefined } | undefined {
    if (object.spec[field] === undefined || !this.callsAnswered(kind, field, object, 'before').ok) return undefined;
    const after = this.callsAnswered(kind, field, object, 'after');
    return after.ok ? undefined : { cause: after.cause };
  }

  /** The change that removes an object's messaging link (its `field`); undefined when it keeps one. */
  brokenMessages(kind: PlannerKind, field: string, object: LiveObject): { cause: string | undefined } | undefined {
    const targetKind = targetKindOf(kind, field);
    if (object.spec[field] === undefined || targetKind === undefined) return undefined;
    const address = this.addressOf(kind.kind, object.id);
    const own = this.changes.get(address)?.address;
    const target = this.target(targetKind, this.spec(address, 'after')?.[field], 'after');
    if (target === undefined) return { cause: own };
    if (target.endsWith('#replaced')) return { cause: target.replace(/#replaced$/, '') };
    const removal = this.removal(target);
    return removal ? { cause: removal.address } : undefined;
  }

  /** Set members of a field, keyed as the kind compares them (`ip_addresses`, `entries`). */
  private members(kind: string, spec: Readonly<Record<string, unknown>> | undefined, field: string): Set<string> {
    const values = spec?.[field];
    const key = this.inputs.kinds.get(kind)?.setFields[field] ?? ((member: unknown) => String(member));
    return new Set(Array.isArray(values) ? values.map((member) => key(member)) : []);
  }

  /**
   * Changes that make an object admitting a caller (an ACL or credential, named by the caller's
   * `field`) stop letting in what it let in before: members removed, the object deleted or swapped,
   * a secret or a credential field changed.
   */
  private lostAdmission(
    userAddress: string,
    field: string,
    targetKind: string,
    admits: Admission,
    before: LiveObject,
  ): string[] {
    const beforeTarget = this.target(targetKind, before.spec[field], 'before');
    if (beforeTarget === undefined) return [];
    const userChange = this.changes.get(userAddress);
    const afterUser = this.spec(userAddress, 'after');
    if (!afterUser) return [];
    const afterTarget = this.target(targetKind, afterUser[field], 'after');
    if (afterTarget === undefined || afterTarget.endsWith('#replaced')) {
      return [afterTarget?.replace(/#replaced$/, '') ?? userChange?.address].filter(
        (cause): cause is string => cause !== undefined,
      );
    }
    const targetChange = this.changes.get(afterTarget);
    if (this.removal(afterTarget)) return [afterTarget];
    if ('credential' in admits) {
      // Another credential, or a new secret or username, makes the caller's stored one fail.
      if (afterTarget !== beforeTarget) return userChange ? [userChange.address] : [];
      const secrets = targetChange?.secrets ?? {};
      const fieldChanged = admits.credential.some(
        (name) => this.spec(afterTarget, 'before')?.[name] !== this.spec(afterTarget, 'after')?.[name],
      );
      return targetChange && (Object.values(secrets).some((secret) => secret.value === 'changed') || fieldChanged)
        ? [targetChange.address]
        : [];
    }
    const beforeSpec = this.spec(beforeTarget, 'before');
    const afterSpec = this.spec(afterTarget, 'after');
    // One spec in both worlds (what the plan leaves alone) has the same members: none is lost.
    if (afterTarget === beforeTarget && afterSpec === beforeSpec) return [];
    const had = this.members(targetKind, beforeSpec, admits.members);
    const has = this.members(targetKind, afterSpec, admits.members);
    if (![...had].some((member) => !has.has(member))) return [];
    return [afterTarget === beforeTarget ? (targetChange?.address ?? userChange?.address) : userChange?.address].filter(
      (cause): cause is string => cause !== undefined,
    );
  }

  /** Changes after which a caller (at `address`) is no longer let in by what its `authentication` names. */
  lostAuthentication(kind: PlannerKind, authentication: Authentication, before: LiveObject, address: string): string[] {
    if (authentication.removalBreaks) {
      const removal = this.removal(address);
      if (removal) return [removal.address];
    }
    const after = this.spec(address, 'after');
    if (!after || (authentication.when && !authentication.when(after))) return [];
    return authentication.by.flatMap((field) => {
      const targetKind = targetKindOf(kind, field);
      const admits = targetKind === undefined ? undefined : this.inputs.kinds.get(targetKind)?.traffic?.admits;
      return targetKind === undefined || admits === undefined
        ? []
        : this.lostAdmission(address, field, targetKind, admits, before);
    });
  }
}
