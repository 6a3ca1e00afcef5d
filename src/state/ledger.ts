import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Scope } from '../resources/ownership-scope.js';
import { TelformError } from '../util/errors.js';
import { sameEndpoint } from '../util/endpoint.js';

/**
 * The ownership ledger (docs/state-and-safety.md): which live objects telform manages, bound to one
 * endpoint and account. It never holds a secret: write-only fields are kept as HMAC-SHA256
 * fingerprints keyed from the account's auth token, with the key's id, so a changed secret is
 * detectable and a token change makes fingerprints unverifiable rather than wrong.
 */

export const ledgerFormatVersion = 1;

/**
 * How a secret is obtained, as plans show it and the ledger records it, never the value. A file
 * is named relative to the directory telform runs in (`/` separators), so plans and a committed
 * ledger read the same on every machine.
 */
export type SecretSourceRef = { fromEnv: string } | { fromFile: string } | { literal: true };

export interface SecretFingerprint {
  hmac: string;
  key_id: string;
  /**
   * Where the applied value came from (never the value), so the next plan shows a change of
   * source as a change. Absent in ledgers written before sources were recorded: not compared.
   */
  source?: SecretSourceRef;
  /**
   * The address the fingerprint was made under, when the entry has moved since (`state mv`,
   * `metadata.moved_from`): a move cannot fingerprint again without the secret, so it records
   * where the HMAC's address came from and comparisons use that. Absent: the entry's own address.
   * The next apply that sends the secret fingerprints it under the current address.
   */
  keyed_as?: string;
}

export interface LedgerEntry {
  kind: string;
  name: string;
  /** The live object's id. */
  id: string;
  /** The last applied normalised spec, secrets left out. */
  applied_spec: Record<string, unknown>;
  /** Fingerprint of each write-only field, by field path. */
  secrets: Record<string, SecretFingerprint>;
  /**
   * Ids of objects this resource replaced whose delete has not been confirmed yet: still owned, so
   * the next plan deletes them instead of forgetting them.
   */
  superseded?: string[];
  /**
   * `metadata.protect: true` as last applied. It outlives the manifest: a protected resource whose
   * document was removed (or whose protection was dropped in the same change) is still not deleted
   * or replaced until an apply records it unprotected, or `telform state unprotect` says so.
   */
  protect?: true;
  /**
   * The live object's name, kept by `telform state mv`: while the manifest leaves the API's name field
   * out (so it would default to the new metadata.name), this name is the desired one, and the plan
   * after a move stays empty. Setting the name field in the manifest overrides it.
   */
  live_name?: string;
  updated_at: string;
}

export interface Ledger {
  format_version: number;
  /** Random id of this ledger's history; a saved plan names it so it cannot be applied to another. */
  lineage: string;
  /** `local` for the embedded emulator, else the base URL. */
  endpoint: string;
  account: string;
  /** Incremented by every apply that changed the ledger. */
  serial: number;
  /** Keyed by address `Kind/name`, sorted on write. */
  resources: Record<string, LedgerEntry>;
  /**
   * Set by `telform state migrate` on the ledger it copied from: this copy is no longer the ledger,
   * and every command on it refuses, naming where it went (`to`: the flags that name the new place).
   */
  retired?: { to: string; at: string };
  /**
   * This ledger's hand-overs of its account (`telform state claim` / `release`), oldest first: the
   * record of who took the account from whom, and when.
   */
  ownership?: OwnershipEvent[];
  /**
   * How many history records the state keeps (`telform history retain N`); absent: the default
   * (history.ts). The oldest beyond it are dropped as new ones are appended.
   */
  history_keep?: number;
  /**
   * The end of the history as the last append left it (history.ts): the newest record's number and
   * hash, how many records are kept and the first of them. Written with every append, so a history
   * cut short, emptied or deleted no longer matches its ledger, and `history verify` says so.
   * Absent in ledgers written before the history was anchored.
   */
  history_head?: HistoryHead;
}

/** The history's end as its ledger anchors it; `seq` 0: no record yet. */
export interface HistoryHead {
  seq: number;
  /** The newest record's hash (null with no record). */
  hash: string | null;
  /** Records kept after the last append (retention drops the oldest beyond `history_keep`). */
  count: number;
  /** The oldest record kept (0 with none): those before it were dropped by retention. */
  first: number;
}

/** A hand-over of the account, as the ledger that made it records it. */
export interface OwnershipEvent {
  action: 'claim' | 'release';
  at: string;
  /** A claim that took the account from another ledger: that ledger's lineage. */
  from_lineage?: string;
  /**
   * What the ledger owns after this event when it is part of the account (`state claim --scope`,
   * `state release --scope`); absent: everything (a claim) or nothing (a release).
   */
  scope?: Scope;
}

export function emptyLedger(endpoint: string, account: string): Ledger {
  return { format_version: ledgerFormatVersion, lineage: randomUUID(), endpoint, account, serial: 0, resources: {} };
}

export function addressOf(kind: string, name: string): string {
  return `${kind}/${name}`;
}

/** Refuses a ledger that belongs to another endpoint or account (docs/state-and-safety.md). */
export function assertLedgerBinding(ledger: Ledger, endpoint: string, account: string, file: string): void {
  if (!sameEndpoint(ledger.endpoint, endpoint) || ledger.account !== account) {
    const repoint =
      ledger.account === account
        ? `, or if this is where that account now lives, run telform state endpoint ${endpoint}`
        : '';
    throw new TelformError(
      'ledger_mismatch',
      `the state file ${file} belongs to account ${ledger.account} at ${ledger.endpoint}, not to account ${account} at ${endpoint}; use --state to pick the right file${repoint}`,
    );
  }
}

/** The fingerprint key: derived from the auth token, so the ledger proves nothing without it. */
export class SecretFingerprinter {
  readonly keyId: string;
  private readonly key: Buffer;

  constructor(authToken: string) {
    this.key = createHmac('sha256', authToken).update('telform secret fingerprint v1').digest();
    this.keyId = createHash('sha256').update(this.key).digest('hex').slice(0, 16);
  }

  fingerprint(address: string, field: string, secret: string): SecretFingerprint {
    // The address and field are mixed in so equal passwords of two resources do not look equal.
    const hmac = createHmac('sha256', this.key).update(`${address}\0${field}\0${secret}`).digest('hex');
    return { hmac, key_id: this.keyId };
  }

  /**
   * `same`/`changed` when the stored fingerprint was made with this key, else `unverifiable`;
   * `address` is the entry's, and a moved fingerprint is compared under the address it records.
   */
  compare(
    stored: SecretFingerprint | undefined,
    address: string,
    field: string,
    secret: string,
  ): 'same' | 'changed' | 'unverifiable' {
    return this.compareFingerprints(stored, this.fingerprint(keyedAs(stored, address), field, secret));
  }

  /** As `compare`, with the secret's fingerprint already made under the address `keyedAs` names. */
  compareFingerprints(
    stored: SecretFingerprint | undefined,
    fresh: SecretFingerprint,
  ): 'same' | 'changed' | 'unverifiable' {
    if (!stored || stored.key_id !== this.keyId) return 'unverifiable';
    return stored.hmac === fresh.hmac ? 'same' : 'changed';
  }
}

/** The address a stored fingerprint of the entry at `address` was made under. */
export function keyedAs(stored: SecretFingerprint | undefined, address: string): string {
  return stored?.keyed_as ?? address;
}

/** Parses and checks a ledger read from disk; a damaged file is an error, never an empty ledger. */
export function parseLedger(text: string, file: string): Ledger {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new TelformError(
      'ledger_corrupt',
      `the state file ${file} is not valid JSON; restore it from version control or a backup`,
    );
  }
  const ledger = data as Partial<Ledger>;
  if (
    typeof ledger !== 'object' ||
    ledger === null ||
    typeof ledger.format_version !== 'number' ||
    typeof ledger.endpoint !== 'string' ||
    typeof ledger.account !== 'string' ||
    typeof ledger.serial !== 'number' ||
    typeof ledger.lineage !== 'string' ||
    typeof ledger.resources !== 'object' ||
    ledger.resources === null
  ) {
    throw new TelformError('ledger_corrupt', `the state file ${file} is not a telform state file`);
  }
  if (ledger.format_version > ledgerFormatVersion) {
    throw new TelformError(
      'ledger_version',
      `the state file ${file} has format ${ledger.format_version}, newer than this telform understands (${ledgerFormatVersion}); upgrade telform`,
    );
  }
  return ledger as Ledger;
}

/** Serialises with sorted resource keys, so the committed file diffs cleanly. */
export function serializeLedger(ledger: Ledger): string {
  const resources: Record<string, LedgerEntry> = {};
  for (const address of Object.keys(ledger.resources).sort())
    resources[address] = ledger.resources[address] as LedgerEntry;
  return `${JSON.stringify({ ...ledger, resources }, null, 2)}\n`;
}
