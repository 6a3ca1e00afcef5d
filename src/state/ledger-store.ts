import { createHash, randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../util/clock.js';
import { TelformError } from '../util/errors.js';
import { replayJournal, type IntentInput, type JournalRecord, type UncertainOperation } from './journal.js';
import {
  assertLedgerBinding,
  emptyLedger,
  parseLedger,
  serializeLedger,
  type Ledger,
  type LedgerEntry,
  type OwnershipEvent,
} from './ledger.js';
import type { StateBackend } from './backend.js';
import {
  chainRecord,
  defaultHistoryKeep,
  parseHistoryLine,
  type HistoryChange,
  type HistoryDraft,
  type HistoryRecord,
} from './history.js';

/**
 * The ledger of a run, wherever it lives (a `StateBackend`: a file, a PostgreSQL workspace).
 *
 * Every operation of an apply is made durable as it completes: an intent is appended before the
 * request, the result after (what the records mean: `journal.ts`). A crash loses nothing: the next
 * run replays the journal over the ledger, and the intents without a result are settled before
 * anything is planned (`settle.ts`). Compaction writes the ledger — only over the serial this run
 * read (compare-and-swap) — and leaves in the journal only the intents still open.
 */

export interface OpenStateOptions {
  /**
   * The endpoint and account of this run; the ledger must belong to them. Omitted only by
   * commands that edit the ledger itself (`telform state`), which then need an existing ledger.
   */
  binding?: { endpoint: string; account: string };
  /** Take the lock (apply, state edits); plan and drift only read. */
  lock: boolean;
  /** How long to wait for a lock another run holds (`--lock-timeout`); default 0: refuse at once. */
  lockWaitMs?: number;
  /** The time of journal records and ledger entries; the system's unless a test passes its own. */
  clock?: Clock;
  /**
   * Open a ledger that `telform state migrate` retired (`--reopen-retired`). A locking run makes it a
   * ledger again under a new lineage, so it never passes for the copy it was migrated to.
   */
  reopenRetired?: boolean;
  /** Tells the user what opening did on its own (a stale lock taken over, a torn journal line dropped, a retired ledger reopened). */
  notify?: (line: string) => void;
  /**
   * The ledger this run already parsed from the stored text (the state peeked before the manifests
   * loaded). A run that takes no lock uses it when the stored text is still the same, instead of
   * parsing megabytes of JSON again; the run owns that object from here on.
   */
  parsed?: { text: string; ledger: Ledger };
}

/** A journal record waiting for the next append, and who waits for it to be durable. */
interface QueuedRecord {
  line: string;
  durable(): void;
  failed(error: unknown): void;
}

export class LedgerStore {
  /** Records not yet handed to the backend, in the order they were recorded. */
  private queued: QueuedRecord[] = [];
  /** The append in progress and those that follow it while records keep coming; undefined when idle. */
  private flushing: Promise<void> | undefined;
  private dirty = false;
  /** The journal of an apply that stopped, found by this locking run: recorded in the history once. */
  private interrupted: InterruptedApply | undefined;

  private constructor(
    private readonly backend: StateBackend,
    readonly ledger: Ledger,
    private open: UncertainOperation[],
    /** Whether a ledger existed before this run. */
    readonly existed: boolean,
    private readonly locked: boolean,
    replayed: boolean,
    private seq: number,
    /** The serial of the stored ledger as read (undefined: none), which a write must still find. */
    private storedSerial: number | undefined,
    private readonly clock: Clock,
  ) {
    this.dirty = replayed;
  }

  /** Where the ledger lives, for messages (never with a password). */
  get file(): string {
    return this.backend.location;
  }

  /** Now, as the ledger records it (ISO 8601): journal records and entries' `updated_at`. */
  timestamp(): string {
    return new Date(this.clock.now()).toISOString();
  }

  /** Operations whose intent was journaled but whose result was not (yet), oldest first. */
  get uncertain(): readonly UncertainOperation[] {
    return this.open;
  }

  static async open(backend: StateBackend, options: OpenStateOptions): Promise<LedgerStore> {
    const notify = options.notify ?? (() => undefined);
    try {
      if (options.lock) await backend.lock(options.lockWaitMs ?? 0, options.clock ?? systemClock, notify);
      const stored = await backend.read();
      const { records, torn } = parseJournal(stored.journal, backend.location);
      if (torn !== undefined)
        notify(
          `the last record of the journal of ${backend.location} was cut short by a crash and is ignored (record ${torn})`,
        );
      if (stored.ledger === undefined && !options.binding) {
        if (records.length > 0) throw journalOnly(backend.location, records);
        throw new TelformError('no_state', `there is no state at ${backend.location} (use --state to name it)`);
      }
      const ledger =
        stored.ledger === undefined && options.binding
          ? anchoredFromStart(emptyLedger(options.binding.endpoint, options.binding.account))
          : !options.lock && options.parsed !== undefined && options.parsed.text === stored.ledger
            ? options.parsed.ledger
            : parseLedger(stored.ledger ?? '', backend.location);
      const reopened = ledger.retired !== undefined && reopenRetired(ledger, backend.location, options, notify);
      if (options.binding)
        assertLedgerBinding(ledger, options.binding.endpoint, options.binding.account, backend.location);
      const storedSerial = stored.ledger === undefined ? undefined : ledger.serial;
      // A locking run that finds a journal finds an apply that stopped before it recorded itself: what
      // its entries were before, so that the run can write its history record once it is settled.
      const interrupted = options.lock && records.length > 0 ? interruptedApply(ledger, records) : undefined;
      const { uncertain, replayed, lastSeq } = replayJournal(ledger, records);
      const store = new LedgerStore(
        backend,
        ledger,
        uncertain,
        stored.ledger !== undefined,
        options.lock,
        replayed || reopened,
        lastSeq,
        storedSerial,
        options.clock ?? systemClock,
      );
      store.interrupted = interrupted;
      return store;
    } catch (error) {
      await backend.close();
      throw error;
    }
  }

  /** Records, durably, that an operation is about to be sent. */
  recordIntent(intent: IntentInput): Promise<void> {
    const record: UncertainOperation = { type: 'intent', ...intent, seq: ++this.seq, at: this.timestamp() };
    // Open until its result: a request that fails, or a run that stops, leaves it for the next run to settle.
    this.open.push(record);
    return this.append(record);
  }

  /** Records, durably, the ledger entry after an operation (`null`: no longer managed). */
  recordResult(address: string, entry: LedgerEntry | null): Promise<void> {
    this.setEntry(address, entry);
    return this.append({ type: 'result', seq: ++this.seq, address, entry, at: this.timestamp() });
  }

  /**
   * Closes the open intents of `address` with what settling them found: the entry to record
   * (`null`: no longer managed; undefined: the entry stays as it is). Durable when the store is
   * locked (apply); in memory only for a read-only run (plan, drift), so that its plan shows the
   * settlement the next apply will record.
   */
  async settle(address: string, entry: LedgerEntry | null | undefined): Promise<void> {
    const next = entry === undefined ? (this.ledger.resources[address] ?? null) : entry;
    if (this.locked) await this.recordResult(address, next);
    else this.setEntry(address, next);
  }

  private setEntry(address: string, entry: LedgerEntry | null): void {
    if (entry) this.ledger.resources[address] = entry;
    else delete this.ledger.resources[address];
    this.open = this.open.filter((intent) => intent.address !== address);
    this.dirty = true;
  }

  /**
   * Writes the ledger (serial + 1 when anything changed) over the serial read, and leaves in the
   * journal only the intents still open (e.g. `telform state` edits run no settlement).
   */
  async compact(): Promise<void> {
    await this.flushing;
    if (!this.dirty) return;
    this.assertLocked();
    const serial = this.ledger.serial + 1;
    await this.backend.commit({
      ledger: serializeLedger({ ...this.ledger, serial }),
      serial,
      expectedSerial: this.storedSerial,
      journal: this.open.map((intent) => JSON.stringify(intent)),
    });
    this.ledger.serial = serial;
    this.storedSerial = serial;
    this.dirty = false;
  }

  /**
   * Retires this ledger after `state migrate` copied it (`to`: the flags that name the new place):
   * written by `compact`, after which every command on it refuses and names the new place.
   */
  retire(to: string): void {
    this.assertLocked();
    this.ledger.retired = { to, at: this.timestamp() };
    this.dirty = true;
  }

  /**
   * Makes sure the ledger is stored (a new one is written with its lineage, serial 1), so that what
   * names its lineage outside it — an ownership marker in the account — never names a ledger that
   * a crash could lose before its first write.
   */
  async persist(): Promise<void> {
    if (this.storedSerial !== undefined && !this.dirty) return;
    this.dirty = true;
    await this.compact();
  }

  /** Records a hand-over of the account (`telform state claim` / `release`); written by `compact`. */
  recordOwnership(event: OwnershipEvent): void {
    this.assertLocked();
    this.ledger.ownership = [...(this.ledger.ownership ?? []), event];
    this.dirty = true;
  }

  /** Binds the ledger to another endpoint of its account (`telform state endpoint`); written by `compact`. */
  rebind(endpoint: string): void {
    this.assertLocked();
    this.ledger.endpoint = endpoint;
    this.dirty = true;
  }

  /** The history's stored lines, oldest first (history.ts reads and verifies them). */
  readHistory(): Promise<string[]> {
    return this.backend.readHistory();
  }

  /**
   * Appends a record to the history, chained to the last one stored (the lock keeps two runs from
   * chaining to the same record), then anchors the history's new end in the ledger (its serial kept:
   * the anchor changes no resource). Writes the ledger first when it has changes, so the record
   * names the serial written.
   */
  async appendHistory(draft: HistoryDraft): Promise<HistoryRecord> {
    this.assertLocked();
    await this.recordInterrupted();
    return this.appendRecord(draft);
  }

  /**
   * Writes the history record of the stopped apply this run found in the journal, once: what its
   * journal says it changed, with what settling found (an operation still open is `pending`).
   * Called before this run's own record, and when the run closes without one.
   */
  async recordInterrupted(): Promise<void> {
    const found = this.interrupted;
    if (!found || !this.locked) return;
    this.interrupted = undefined;
    await this.compact();
    const changes = interruptedChanges(found, this.ledger, this.open);
    if (changes.length === 0) return;
    await this.appendRecord({
      type: 'apply',
      trigger: 'apply',
      origin: {},
      plan: { digest: '', created_at: found.from },
      approvals: {},
      changes,
      requests: 0,
      fees_usd: 0,
      result: changes.every((change) => change.result === 'done') ? 'applied' : 'partial',
      interrupted: { journal_from: found.from, settled_at: this.timestamp() },
    });
  }

  private async appendRecord(draft: HistoryDraft): Promise<HistoryRecord> {
    await this.persist();
    const lines = await this.backend.readHistory();
    const tail = lines[lines.length - 1];
    // A damaged last line is chained to as it is (by its text's hash): `history verify` names it, and this record does not hide it.
    const last =
      tail === undefined
        ? undefined
        : (parseHistoryLine(tail) ?? { seq: lines.length, hash: createHash('sha256').update(tail).digest('hex') });
    const record = chainRecord({ ...draft, ledger_serial: this.ledger.serial }, last, this.timestamp());
    const keep = this.ledger.history_keep ?? defaultHistoryKeep;
    await this.backend.appendHistory(JSON.stringify(record), keep);
    const kept = [...lines, JSON.stringify(record)].slice(-keep);
    this.ledger.history_head = {
      seq: record.seq,
      hash: record.hash,
      count: kept.length,
      first: parseHistoryLine(kept[0] ?? '')?.seq ?? record.seq,
    };
    await this.backend.commit({
      ledger: serializeLedger(this.ledger),
      serial: this.ledger.serial,
      expectedSerial: this.storedSerial,
      journal: this.open.map((intent) => JSON.stringify(intent)),
    });
    return record;
  }

  /** Sets how many history records the state keeps (`telform history retain`); written by `compact`. */
  setHistoryKeep(keep: number): void {
    this.assertLocked();
    this.ledger.history_keep = keep;
    this.dirty = true;
  }

  /** Keeps a copy of the ledger as it is now (before `state rm`/`mv` edit it); says where. */
  backup(): Promise<string> {
    return this.backend.backup(serializeLedger(this.ledger));
  }

  /**
   * Copies this ledger to another place (`telform state migrate`), which must hold none yet: the
   * same lineage and serial, so saved plans still apply. Refused while operations of an
   * interrupted apply are unsettled (the next apply settles them where they were journaled).
   */
  async copyTo(target: StateBackend, lockWaitMs: number): Promise<void> {
    if (this.open.length > 0) {
      throw new TelformError(
        'state_unsettled',
        `the state ${this.file} has ${this.open.length} operation${this.open.length === 1 ? '' : 's'} of an interrupted apply to settle (${this.open.map((intent) => intent.address).join(', ')}); run telform apply first`,
      );
    }
    await target.lock(lockWaitMs, this.clock);
    const there = await target.read();
    if (there.ledger !== undefined && !looksLikeLedger(there.ledger)) {
      // Most often a manifest or another file named by mistake: it is never overwritten, and never called a ledger.
      const what = /^\s*apiVersion\s*:/m.test(there.ledger) ? 'a manifest' : 'a file that is not a telform state';
      throw new TelformError(
        'state_exists',
        `${target.location} is ${what}, not an empty place for the state; it is left as it is: --to names where the state goes, a new file such as telform-state.json or a postgres:// URL`,
      );
    }
    if (there.ledger !== undefined || there.journal.length > 0) {
      throw new TelformError(
        'state_exists',
        `${target.location} already holds a ledger; migrate only to an empty place`,
      );
    }
    await target.commit({
      ledger: serializeLedger(this.ledger),
      serial: this.ledger.serial,
      expectedSerial: undefined,
      journal: [],
    });
    // The history goes with the ledger, record for record, so its chain still verifies in the new place.
    const keep = this.ledger.history_keep ?? defaultHistoryKeep;
    for (const line of await this.backend.readHistory()) await target.appendHistory(line, keep);
  }

  /** Compacts and releases the lock; safe to call more than once. */
  async close(): Promise<void> {
    try {
      if (this.locked) {
        await this.recordInterrupted();
        await this.compact();
      }
    } finally {
      await this.backend.close();
    }
  }

  /**
   * Queues a record; resolves once it is durable. Group commit: the records recorded while an
   * append is in progress (other operations of the apply, running at once) go to the backend
   * together in the next one, so a sync serves several operations instead of each waiting for its
   * own behind the others'. Appends are strictly in order, so a record is durable only with every
   * record before it: the intent of a change that depends on another is never durable without the
   * result the other recorded before it.
   */
  private append(record: JournalRecord): Promise<void> {
    this.assertLocked();
    const line = JSON.stringify(record);
    const queued = new Promise<void>((durable, failed) => this.queued.push({ line, durable, failed }));
    this.flushing ??= this.flush();
    return queued;
  }

  private async flush(): Promise<void> {
    // Records of operations that start in the same turn of the event loop join the first append.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queued.length > 0) {
      const batch = this.queued;
      this.queued = [];
      try {
        await this.backend.append(batch.map((record) => record.line));
        for (const record of batch) record.durable();
      } catch (error) {
        for (const record of batch) record.failed(error);
      }
    }
    this.flushing = undefined;
  }

  private assertLocked(): void {
    if (!this.locked) throw new Error('state store opened read-only');
  }
}

/**
 * The journal's records. Only the last line may be torn (a crash in the middle of an append): it is
 * ignored, and said so. Any other line that does not parse is damage — an intent lost there would let
 * the next run send its create again —, so it is an error naming the record, never skipped.
 */
export function parseJournal(
  lines: readonly string[],
  location: string,
): { records: JournalRecord[]; torn: number | undefined } {
  const records: JournalRecord[] = [];
  for (const [index, line] of lines.entries()) {
    const record = parseRecord(line);
    if (record) {
      records.push(record);
      continue;
    }
    if (index === lines.length - 1) return { records, torn: index + 1 };
    throw new TelformError(
      'journal_corrupt',
      `record ${index + 1} of ${lines.length} in the journal of ${location} is damaged (${describeLine(line)}); only a torn last record is ignored. Restore the journal from a backup, or remove that record by hand if you know what it was`,
    );
  }
  return { records, torn: undefined };
}

function parseRecord(line: string): JournalRecord | undefined {
  try {
    const record = JSON.parse(line) as Partial<JournalRecord> | null;
    if (record === null || typeof record !== 'object') return undefined;
    if (
      (record.type !== 'intent' && record.type !== 'result') ||
      typeof record.seq !== 'number' ||
      typeof record.address !== 'string'
    )
      return undefined;
    return record as JournalRecord;
  } catch {
    return undefined;
  }
}

/** The start of a damaged line, control characters escaped: enough to find it, never a screenful. */
function describeLine(line: string): string {
  const start = JSON.stringify(line.length > 40 ? `${line.slice(0, 40)}…` : line);
  return `it starts ${start}`;
}

/** A journal with no ledger beside it: an apply stopped before its first write of the state. */
function journalOnly(location: string, records: readonly JournalRecord[]): TelformError {
  const { uncertain } = replayJournal(emptyLedger('', ''), records);
  const results = records.filter((record) => record.type === 'result').length;
  return new TelformError(
    'state_journal_only',
    `the state at ${location} has no ledger yet, but its journal holds ${records.length} record${records.length === 1 ? '' : 's'} of an apply that stopped before writing it (${results} result${results === 1 ? '' : 's'}, ${uncertain.length} operation${uncertain.length === 1 ? '' : 's'} to settle); run telform plan with this --state to see them and telform apply to settle and record them`,
  );
}

/** Whether opening a retired ledger made it a ledger again (`--reopen-retired` and the lock); refuses without the flag. */
function reopenRetired(
  ledger: Ledger,
  location: string,
  options: OpenStateOptions,
  notify: (line: string) => void,
): boolean {
  const retired = ledger.retired as NonNullable<Ledger['retired']>;
  if (!options.reopenRetired) {
    throw new TelformError(
      'state_retired',
      `the state ${location} was migrated at ${retired.at} and is retired: use ${retired.to} instead (--reopen-retired uses this copy again, as a new ledger)`,
    );
  }
  if (!options.lock) {
    notify(`reading the retired state ${location} (migrated to ${retired.to} at ${retired.at})`);
    return false;
  }
  delete ledger.retired;
  ledger.lineage = randomUUID();
  notify(
    `reopened the retired state ${location} as a new ledger (lineage ${ledger.lineage}); stop using ${retired.to}, and if that ledger claimed the account, claim it for this one (telform state claim)`,
  );
  return true;
}

/** Whether a state place's text is a ledger (JSON with a lineage), as opposed to some other file. */
function looksLikeLedger(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && 'lineage' in parsed;
  } catch {
    return false;
  }
}

/** A new ledger's history is kept from its start: its anchor says so, and no record yet. */
function anchoredFromStart(ledger: Ledger): Ledger {
  ledger.history_head = { seq: 0, hash: null, count: 0, first: 0 };
  return ledger;
}

/** What a locking run found of a stopped apply: its journal's first time and its entries before it. */
interface InterruptedApply {
  from: string;
  before: Map<string, LedgerEntry | undefined>;
}

function interruptedApply(ledger: Ledger, records: readonly JournalRecord[]): InterruptedApply {
  const before = new Map<string, LedgerEntry | undefined>();
  for (const record of records)
    if (!before.has(record.address)) {
      const entry = ledger.resources[record.address];
      before.set(record.address, entry ? structuredClone(entry) : undefined);
    }
  return { from: records[0]?.at ?? '', before };
}

/** The changes a stopped apply made, from its entries before and the ledger once settled. */
function interruptedChanges(
  found: InterruptedApply,
  ledger: Ledger,
  open: readonly UncertainOperation[],
): HistoryChange[] {
  const changes: HistoryChange[] = [];
  for (const [address, before] of found.before) {
    const after = ledger.resources[address];
    const pending = open.find((intent) => intent.address === address);
    const action = !before ? 'create' : !after ? 'delete' : before.id !== after.id ? 'replace' : 'update';
    if (!pending && before && after && action === 'update' && JSON.stringify(before) === JSON.stringify(after))
      continue;
    if (!pending && !before && !after) continue;
    const kind = (after ?? before)?.kind ?? pending?.kind ?? address.split('/')[0] ?? '';
    const id = after?.id ?? before?.id ?? pending?.id;
    changes.push({
      address,
      kind,
      action: pending && !before && !after ? pending.action : action,
      ...(id ? { id } : {}),
      ...(before ? { before: { ...before.applied_spec } } : {}),
      ...(after ? { after: { ...after.applied_spec } } : {}),
      ...(before && Object.keys(before.secrets).length > 0 ? { secrets_before: before.secrets } : {}),
      ...(after && Object.keys(after.secrets).length > 0 ? { secrets_after: after.secrets } : {}),
      requests: 0,
      fees_usd: 0,
      result: pending ? 'pending' : 'done',
    });
  }
  return changes.sort((a, b) => a.address.localeCompare(b.address));
}
