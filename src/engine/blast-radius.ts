// Blast radius: the traffic each change of a plan breaks, counted from the live account.
//
// The plan is compared as two worlds, before and after: a phone number whose calls were answered
// before and are not after (detached, its trunk deleted or disabled, its trunk left with no origination
// URI) counts once, against the change that broke it; the same for a number's campaign link, for
// the PBX addresses and credentials of an outbound trunk, and for an application's SIP auth. A number
// re-pointed to another working trunk (or campaign) is answered in both worlds and counts nothing.
import { isReference, type DesiredResource, type LiveModel, type PlannerKind } from './model.js';
import type { ChangeDraft } from './change-draft.js';
import type { BlastRadius } from './plan-types.js';
import type { ReferenceIndex } from './references.js';
import type { LiveObject } from '../resources/live-side.js';

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
  const radius = new Map<string, { calls: number; messages: number; numbers: Set<string>; trunks: Set<string>; applications: Set<string> }>();
  const at = (cause: string | undefined) => {
    if (cause === undefined || !world.changes.has(cause)) return undefined;
    let entry = radius.get(cause);
    if (!entry) radius.set(cause, (entry = { calls: 0, messages: 0, numbers: new Set(), trunks: new Set(), applications: new Set() }));
    return entry;
  };
  for (const number of inputs.live.get('PhoneNumber') ?? []) {
    const call = world.brokenCalls(number);
    const callEntry = call && at(call.cause);
    if (callEntry) {
      callEntry.calls += 1;
      callEntry.numbers.add(number.id);
    }
    const message = world.brokenMessages(number);
    const messageEntry = message && at(message.cause);
    if (messageEntry) {
      messageEntry.messages += 1;
      messageEntry.numbers.add(number.id);
    }
  }
  for (const trunk of inputs.live.get('Trunk') ?? []) {
    if (trunk.spec['trunk_direction'] !== 'outbound') continue;
    const address = world.addressOf('Trunk', trunk.id);
    for (const cause of world.lostTrunkAuth(trunk, address)) at(cause)?.trunks.add(address);
  }
  for (const binding of inputs.live.get('ApplicationSipAuth') ?? []) {
    for (const cause of world.lostApplicationAuth(binding)) at(cause)?.applications.add(`Application/${binding.id}`);
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

/** The account before the plan (the live model) and after it (the live model with the plan's changes). */
class World {
  readonly changes = new Map<string, ChangeDraft>();
  private readonly liveByAddress = new Map<string, LiveObject>();

  constructor(private readonly inputs: BlastInputs) {
    for (const change of inputs.changes) if (!this.changes.has(change.address)) this.changes.set(change.address, change);
    for (const [kind, objects] of inputs.live) for (const object of objects) this.liveByAddress.set(this.addressOf(kind, object.id), object);
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
    if (phase === 'after' && change?.action === 'replace' && 'id' in change && change.id === value) return `${address}#replaced`;
    return address;
  }

  /** Whether an inbound trunk answers calls in a phase, and if not after the plan, which change broke it. */
  private trunkAnswers(address: string, phase: Phase): Verdict {
    const spec = this.spec(address, phase);
    const change = this.changes.get(address);
    if (address.endsWith('#replaced')) return { ok: false, cause: address.replace(/#replaced$/, '') };
    if (!spec) return { ok: false, cause: change?.address };
    if (spec['trunk_direction'] === 'outbound' || spec['trunk_status'] === 'disabled') return { ok: false, cause: change?.address };
    for (const field of ['primary_uri_uuid', 'fallback_uri_uuid']) {
      const uri = this.target('OriginationUri', spec[field], phase);
      if (uri !== undefined && !uri.endsWith('#replaced') && this.exists(uri, phase)) return fine;
    }
    const primary = this.target('OriginationUri', spec['primary_uri_uuid'], phase);
    const primaryChange = primary === undefined ? undefined : this.changes.get(primary.replace(/#replaced$/, ''));
    return { ok: false, cause: primaryChange?.address ?? change?.address };
  }

  private numberAnswers(number: LiveObject, phase: Phase): Verdict {
    const address = this.addressOf('PhoneNumber', number.id);
    const spec = this.spec(address, phase);
    const own = this.changes.get(address)?.address;
    const appId = spec?.['app_id'];
    if (appId === undefined) return { ok: false, cause: own };
    // A number on an application (an id that is no trunk) is answered as long as it stays attached.
    if (!isReference(appId) && !this.liveByAddress.has(this.addressOf('Trunk', String(appId)))) return fine;
    const trunk = this.target('Trunk', appId, phase);
    if (trunk === undefined) return { ok: false, cause: own };
    const verdict = this.trunkAnswers(trunk, phase);
    return verdict.ok ? fine : { ok: false, cause: verdict.cause ?? own };
  }

  /** The change that stops calls to a number the account answers now; undefined when none does. */
  brokenCalls(number: LiveObject): { cause: string | undefined } | undefined {
    if (number.spec['app_id'] === undefined || !this.numberAnswers(number, 'before').ok) return undefined;
    const after = this.numberAnswers(number, 'after');
    return after.ok ? undefined : { cause: after.cause };
  }

  /** The change that removes a linked number's campaign link; undefined when it keeps one. */
  brokenMessages(number: LiveObject): { cause: string | undefined } | undefined {
    if (number.spec['campaign_id'] === undefined) return undefined;
    const address = this.addressOf('PhoneNumber', number.id);
    const own = this.changes.get(address)?.address;
    const campaign = this.target('Campaign', this.spec(address, 'after')?.['campaign_id'], 'after');
    if (campaign === undefined) return { cause: own };
    if (campaign.endsWith('#replaced')) return { cause: campaign.replace(/#replaced$/, '') };
    const removal = this.removal(campaign);
    return removal ? { cause: removal.address } : undefined;
  }

  /** Set members of a field, keyed as the kind compares them (`ip_addresses`, `entries`). */
  private members(kind: string, spec: Readonly<Record<string, unknown>> | undefined, field: string): Set<string> {
    const values = spec?.[field];
    const key = this.inputs.kinds.get(kind)?.setFields[field] ?? ((member: unknown) => String(member));
    return new Set(Array.isArray(values) ? values.map((member) => key(member)) : []);
  }

  /**
   * Changes that make an authenticating object (an ACL or credential) of a user stop letting in
   * what it let in before: members removed, the object deleted or swapped, a password changed.
   */
  private lostAuth(userAddress: string, field: string, targetKind: string, memberField: string | undefined, before: LiveObject): string[] {
    const beforeTarget = this.target(targetKind, before.spec[field], 'before');
    if (beforeTarget === undefined) return [];
    const userChange = this.changes.get(userAddress);
    const afterUser = this.spec(userAddress, 'after');
    if (!afterUser) return [];
    const afterTarget = this.target(targetKind, afterUser[field], 'after');
    if (afterTarget === undefined || afterTarget.endsWith('#replaced')) {
      return [afterTarget?.replace(/#replaced$/, '') ?? userChange?.address].filter((cause): cause is string => cause !== undefined);
    }
    const targetChange = this.changes.get(afterTarget);
    if (this.removal(afterTarget)) return [afterTarget];
    if (memberField === undefined) {
      // A credential: another one, or a new password, makes the PBX's stored one fail.
      if (afterTarget !== beforeTarget) return userChange ? [userChange.address] : [];
      const secrets = targetChange?.secrets ?? {};
      const usernameChanged = this.spec(afterTarget, 'before')?.['username'] !== this.spec(afterTarget, 'after')?.['username'];
      return targetChange && (Object.values(secrets).some((secret) => secret.value === 'changed') || usernameChanged) ? [targetChange.address] : [];
    }
    const had = this.members(targetKind, this.spec(beforeTarget, 'before'), memberField);
    const has = this.members(targetKind, this.spec(afterTarget, 'after'), memberField);
    if (![...had].some((member) => !has.has(member))) return [];
    return [afterTarget === beforeTarget ? (targetChange?.address ?? userChange?.address) : userChange?.address].filter((cause): cause is string => cause !== undefined);
  }

  /** Changes after which an outbound trunk's PBX fails authentication by address or by credential. */
  lostTrunkAuth(trunk: LiveObject, address: string): string[] {
    const after = this.spec(address, 'after');
    if (!after || after['trunk_direction'] !== 'outbound') return [];
    return [...this.lostAuth(address, 'ipacl_uuid', 'TrunkIpAcl', 'ip_addresses', trunk), ...this.lostAuth(address, 'credential_uuid', 'TrunkCredential', undefined, trunk)];
  }

  /** Changes after which an application's SIP callers fail authentication (or it has none left). */
  lostApplicationAuth(binding: LiveObject): string[] {
    const address = this.addressOf('ApplicationSipAuth', binding.id);
    const removal = this.removal(address);
    if (removal) return [removal.address];
    return [...this.lostAuth(address, 'ip_acl_uuid', 'SipIpAcl', 'entries', binding), ...this.lostAuth(address, 'credential_uuid', 'SipCredential', undefined, binding)];
  }
}
