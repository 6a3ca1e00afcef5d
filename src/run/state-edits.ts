// The state edits (`telform state list|show|rm|unprotect|mv`): read or change the ownership ledger,
// never the account. Each edit takes the ledger's lock and backs it up before its first write; its
// results are returned for the caller to render, its notes (the backup, a lock taken over) go to
// the run's stderr.
import { catalog } from '../resources/index.js';
import { metadataNamePattern, metadataNameRule } from '../resources/fields.js';
import type { Ledger, LedgerEntry } from '../state/ledger.js';
import type { LedgerStore } from '../state/ledger-store.js';
import { moveEntry } from '../state/ledger-move.js';
import { TelformError } from '../util/errors.js';
import type { GlobalOptions, RunContext } from './context.js';
import { openState } from './state-location.js';
import { runOrigin } from './history-origin.js';

/** The ledger as `state list` shows it (a copy: the store is closed). */
export async function readState(globals: GlobalOptions, context: Pick<RunContext, 'io'>): Promise<Ledger> {
  return withStore(globals, context, false, (store) => structuredClone(store.ledger));
}

/** One entry, as `state show` shows it; an address the state does not hold is refused. */
export async function readStateEntry(
  address: string,
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
): Promise<LedgerEntry> {
  return withStore(globals, context, false, (store) => structuredClone(requireEntry(store, address)));
}

/** `state rm`: forgets the addresses (every one must be held), leaving their objects in the account. */
export async function forgetResources(
  addresses: readonly string[],
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
): Promise<string[]> {
  return withStore(globals, context, true, async (store) => {
    for (const address of addresses) requireEntry(store, address);
    await backUp(store, context);
    const forgotten: string[] = [];
    for (const address of addresses) {
      await store.recordResult(address, null);
      forgotten.push(address);
    }
    await recordEdit(
      store,
      context,
      'state rm',
      forgotten.map((address) => ({ address, removed: true as const })),
    );
    return forgotten;
  });
}

/** `state unprotect`: lifts the recorded protection; false when the entry was not protected. */
export async function unprotectResource(
  address: string,
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
): Promise<boolean> {
  return withStore(globals, context, true, async (store) => {
    const entry = requireEntry(store, address);
    if (entry.protect !== true) return false;
    await backUp(store, context);
    const { protect: _lifted, ...unprotected } = entry;
    await store.recordResult(address, { ...unprotected, updated_at: store.timestamp() });
    await recordEdit(store, context, 'state unprotect', [{ address }]);
    return true;
  });
}

export interface Moved {
  from: string;
  to: string;
  /** The API's name field of the kind, and the live name the state now records for `to`, if any. */
  nameField?: string;
  liveName?: string;
}

/**
 * `state mv`: renames a managed resource (same kind, a valid metadata.name, a free address). The
 * entry moves as an apply's `metadata.moved_from` moves it, fingerprints still valid. The live
 * object keeps its name, which the state records, so a manifest that leaves the name field out
 * plans no rename.
 */
export async function moveResource(
  from: string,
  to: string,
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
): Promise<Moved> {
  return withStore(globals, context, true, async (store) => {
    const entry = requireEntry(store, from);
    const [kind, name] = splitAddress(to);
    if (kind !== entry.kind)
      throw new TelformError('state_mv_kind', `${from} is a ${entry.kind}; it cannot become a ${kind}`);
    if (!metadataNamePattern.test(name))
      throw new TelformError('state_mv_name', `"${name}" is not a valid metadata.name: it ${metadataNameRule}`);
    if (store.ledger.resources[to]) throw new TelformError('state_mv_exists', `${to} is already in the state`);
    await backUp(store, context);
    const nameField = catalog.get(kind)?.nameField;
    const applied = nameField === undefined ? undefined : entry.applied_spec[nameField];
    const liveName = entry.live_name ?? (typeof applied === 'string' ? applied : undefined);
    await moveEntry(store, from, to, name, liveName === undefined ? {} : { liveName });
    await recordEdit(store, context, 'state mv', [{ address: from, to }]);
    return {
      from,
      to,
      ...(nameField === undefined ? {} : { nameField }),
      ...(liveName === undefined ? {} : { liveName }),
    };
  });
}

async function withStore<T>(
  globals: GlobalOptions,
  context: Pick<RunContext, 'io'>,
  lock: boolean,
  work: (store: LedgerStore) => T | Promise<T>,
): Promise<T> {
  const store = await openState(globals, context.io.env, { lock, notify: context.io.stderr });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The edit's history record, after the ledger is written (so it names the serial). */
async function recordEdit(
  store: LedgerStore,
  context: Pick<RunContext, 'io'>,
  command: string,
  edits: Array<{ address: string; to?: string; removed?: true }>,
): Promise<void> {
  await store.compact();
  await store.appendHistory({
    type: 'state_edit',
    command,
    edits,
    origin: await runOrigin(context.io.env, context.io.cwd, []),
  });
}

async function backUp(store: LedgerStore, context: Pick<RunContext, 'io'>): Promise<void> {
  context.io.stderr(`backed up the state to ${await store.backup()}`);
}

function requireEntry(store: LedgerStore, address: string): LedgerEntry {
  splitAddress(address);
  const entry = store.ledger.resources[address];
  if (!entry)
    throw new TelformError('state_unknown', `${address} is not in the state ${store.file} (see telform state list)`);
  return entry;
}

function splitAddress(address: string): [string, string] {
  const match = /^([A-Za-z]+)\/(.+)$/.exec(address);
  if (!match) throw new TelformError('bad_address', `"${address}" is not an address like Kind/name`);
  return [match[1] as string, match[2] as string];
}
