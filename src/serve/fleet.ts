// The fleet as serve knows it: per account the latest check, when it ran and runs next, and the
// registry status of each managed 10DLC object; plus a bounded list of recent events. Comparing a
// new observation with what is known, and recording it, happen together in one synchronous step,
// so two observations racing (a callback's read and an interval's check) can never both announce
// the same change: the second finds it already known.
import type { AccountCheck, AccountStatus, EventCause, EventDraft, RegistryEntry, ServeEvent } from './model.js';

export interface AccountView {
  name: string;
  status: AccountStatus;
  /** The latest check, once there is one. */
  check?: AccountCheck;
  lastRunAt?: number;
  lastDurationMs?: number;
  nextRunAt?: number;
  /** Whether a check or an apply of this account is under way. */
  running: boolean;
  registry: Map<string, KnownRegistry>;
}

interface KnownRegistry {
  entry: RegistryEntry;
  /** The observation order of the read that found it: an older read never overwrites a newer one. */
  observed: number;
}

/** How many recent events the page shows and the service keeps (memory stays flat). */
export const recentEventLimit = 200;

export class Fleet {
  readonly accounts = new Map<string, AccountView>();
  private readonly recent: ServeEvent[] = [];
  private observation = 0;

  constructor(names: readonly string[]) {
    for (const name of names) this.accounts.set(name, { name, status: 'unknown', running: false, registry: new Map() });
  }

  /** Take before the reads of an observation start; pass to `recordCheck`/`recordRegistry`. */
  beginObservation(): number {
    this.observation += 1;
    return this.observation;
  }

  account(name: string): AccountView {
    const view = this.accounts.get(name);
    if (!view) throw new Error(`serve: no account ${name}`);
    return view;
  }

  /**
   * Records a check begun at `observed`, returning the events it makes: the account's status when it
   * changed, and each managed registry object whose status moved since it was last seen. An object
   * seen for the first time makes no event (serve does not know what it was before).
   */
  recordCheck(name: string, check: AccountCheck, observed: number, cause: EventCause): EventDraft[] {
    const view = this.account(name);
    const drafts: EventDraft[] = [];
    if (view.status !== check.status) {
      drafts.push({
        type: 'account_status',
        account: name,
        cause,
        from: view.status,
        to: check.status,
        drifted: check.drifted,
        pending: check.pending,
        ...(check.error ? { error: check.error } : {}),
      });
    }
    view.status = check.status;
    view.check = check;
    // A failed check read nothing: what was known of the registry stays.
    if (check.status !== 'error') {
      const seen = new Set<string>();
      for (const entry of check.registry) {
        seen.add(registryKey(entry));
        drafts.push(...this.recordRegistry(name, entry, observed, cause));
      }
      for (const key of [...view.registry.keys()]) if (!seen.has(key)) view.registry.delete(key);
    }
    return drafts;
  }

  /** Records one object's registry status read at `observed`; an event when it moved. */
  recordRegistry(name: string, entry: RegistryEntry, observed: number, cause: EventCause): EventDraft[] {
    const view = this.account(name);
    const key = registryKey(entry);
    const known = view.registry.get(key);
    if (known && known.observed > observed) return [];
    view.registry.set(key, { entry, observed });
    if (!known || known.entry.status === entry.status) return [];
    return [
      {
        type: 'registry_status',
        account: name,
        cause,
        address: entry.address,
        kind: entry.kind,
        object_id: entry.id,
        from: known.entry.status,
        to: entry.status,
        ...(entry.reason === undefined ? {} : { reason: entry.reason }),
      },
    ];
  }

  /**
   * Takes over what the last look at `name` knew (another replica's look, with a queue): its status
   * and registry objects, as if this process had seen them itself just now.
   */
  restore(name: string, status: AccountStatus, registry: readonly RegistryEntry[]): void {
    const view = this.account(name);
    view.status = status;
    const observed = this.beginObservation();
    view.registry = new Map(registry.map((entry) => [registryKey(entry), { entry, observed }]));
  }

  /** The managed registry object a callback names, if this account has it. */
  findRegistry(name: string, kind: RegistryEntry['kind'], id: string): RegistryEntry | undefined {
    return this.accounts.get(name)?.registry.get(`${kind}:${id}`)?.entry;
  }

  remember(event: ServeEvent): void {
    this.recent.push(event);
    if (this.recent.length > recentEventLimit) this.recent.splice(0, this.recent.length - recentEventLimit);
  }

  /** Recent events, newest first; of one account when `name` is given. */
  recentEvents(name?: string): ServeEvent[] {
    const events = name === undefined ? this.recent : this.recent.filter((event) => event.account === name);
    return [...events].reverse();
  }
}

function registryKey(entry: Pick<RegistryEntry, 'kind' | 'id'>): string {
  return `${entry.kind}:${entry.id}`;
}
