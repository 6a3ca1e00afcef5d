// The history a state keeps beside its ledger (docs/state-and-safety.md, history): one record per
// apply, state edit, drift seen and registry event, appended and never rewritten. Each record carries
// the hash of the one before it, so an edited, removed or inserted record breaks the chain and
// `telform history verify` names the first record that does not fit. Like the ledger it never holds a
// secret: write-only fields appear only as the fingerprints the ledger already keeps.
import { createHash } from 'node:crypto';
import { stableJson } from '../util/stable-json.js';
import type { HistoryHead, SecretFingerprint } from './ledger.js';

export const historyFormatVersion = 1;

/** How many records a state keeps when nobody set its retention (`telform history retain`). */
export const defaultHistoryKeep = 1000;

/** Where a run came from: the manifests' commit, the CI run and its actor, else the local user. */
export interface RunOrigin {
  /** The commit the manifests were read at (`git rev-parse HEAD`), when they are in a git work tree. */
  commit?: string;
  /** The manifests had uncommitted changes: the commit alone does not say what was applied. */
  dirty?: true;
  /** The CI system and run, from its environment. */
  ci?: { system: 'github-actions' | 'gitlab-ci'; run: string; url?: string };
  /** Who: the CI's actor, else the local user. */
  actor?: string;
  host?: string;
}

/** One resource an apply touched: what it was, what it became, what it took. */
export interface HistoryChange {
  address: string;
  kind: string;
  action: string;
  /**
   * The address the state held it under before this apply renamed it (`metadata.moved_from`); a
   * rename alone is recorded with the action `move`.
   */
  moved_from?: string;
  /** The live object's id before the apply (update, replace, delete) or after it (create). */
  id?: string;
  /** The normalised live spec the plan saw (secrets are never in it). */
  before?: Record<string, unknown>;
  /** The spec the plan asked for. */
  after?: Record<string, unknown>;
  /** Each write-only field's fingerprint in the ledger before and after (never a value). */
  secrets_before?: Record<string, SecretFingerprint>;
  secrets_after?: Record<string, SecretFingerprint>;
  /** Requests the change took (the plan's estimate). */
  requests: number;
  fees_usd: number;
  irreversible?: true;
  result: 'done' | 'failed' | 'skipped' | 'pending' | 'blocked';
  error?: string;
}

/**
 * What the approval rules asked of an apply and who gave it (docs/approvals.md): per change, the rules
 * and their approvers; the approvals as signed (payload and SSH signature), so they can be verified
 * again later against the people file's keys; and an emergency's reason.
 */
export interface HistorySignoff {
  /** The digest the approvals sign (the plan without its seal and creation time). */
  digest: string;
  changes: Array<{
    address: string;
    rules: Array<{ rule: string; needs: string; approvers: Array<{ person: string; roles: string[]; key: string }> }>;
  }>;
  approvals: Array<Record<string, unknown>>;
  emergency?: { reason: string; by: string; role: string };
}

/** The plan an apply carried out, by its digest (and seal, when it was a saved plan). */
export interface HistoryPlan {
  digest: string;
  created_at: string;
  /** `key_id:value` of a saved plan's seal. */
  seal?: string;
}

export type HistoryEvent =
  | {
      type: 'apply';
      /** What ran it: `apply` (-f or a saved plan), `serve` (`--apply safe`), `revert`, `rollout` (a wave of --accounts). */
      trigger: 'apply' | 'serve' | 'revert' | 'rollout';
      plan: HistoryPlan;
      approvals: Record<string, unknown>;
      changes: HistoryChange[];
      requests: number;
      fees_usd: number;
      result: 'applied' | 'partial' | 'failed';
      /** A revert: the number of the apply it put back. */
      reverts?: number;
      /** A revert given `--over`: the later applies whose changes to the same fields it took back. */
      over?: number[];
      /** A rollout's wave (`apply --accounts --waves`). */
      wave?: { number: number; of: number };
      /** The rest of a saved plan an earlier apply (this number) applied part of. */
      finishes?: number;
      /** The approval rules the plan passed, with the signed approvals (absent in records before them). */
      signoff?: HistorySignoff;
      /**
       * An apply that stopped before it could record itself (killed, the machine lost): written by the
       * next run that took the lock, from the journal it settled. Its plan and origin are not known.
       */
      interrupted?: { journal_from: string; settled_at: string };
    }
  | {
      type: 'state_edit';
      command: string;
      /** The addresses it touched, with what became of each. */
      edits: Array<{ address: string; to?: string; removed?: true }>;
    }
  | {
      type: 'drift';
      /** When the account was last seen as the state says (an earlier check or apply). */
      checked_at: string;
      drifted: Array<{ address: string; since?: string }>;
    }
  | {
      type: 'registry';
      address: string;
      status: string;
      from?: string;
    }
  | {
      /** A person acknowledged a resource's drift until `ack.until` (run/acknowledge.ts, docs/approvals.md). */
      type: 'drift_ack';
      ack: DriftAcknowledgement;
    };

/** An acknowledgement as signed: the drift's fingerprint, the reason, until when, by whom, and the SSH signature. */
interface DriftAcknowledgement {
  format: string;
  account: string;
  address: string;
  fingerprint: string;
  reason: string;
  person: string;
  signed_at: string;
  until: string;
  signature: string;
}

export type HistoryRecord = HistoryEvent & {
  format_version: number;
  /** 1, 2, …: the number the record is named by (`apply #41`, `telform revert 41`). */
  seq: number;
  /** The hash of the record before, null for the first one ever written. */
  prev: string | null;
  at: string;
  origin: RunOrigin;
  /** The ledger's serial once this record's change was written. */
  ledger_serial?: number;
  /** sha256 over every other field, in canonical JSON. */
  hash: string;
};

/** What ran an apply, and what else its record says (a revert's target, a rollout's wave). */
export interface HistoryTag {
  trigger: 'apply' | 'serve' | 'revert' | 'rollout';
  reverts?: number;
  over?: number[];
  wave?: { number: number; of: number };
  /** A saved plan finished: the number of the attempt that applied part of it. */
  finishes?: number;
}

export type HistoryDraft = HistoryEvent & { origin: RunOrigin; ledger_serial?: number };

/** The hash a record carries: over all its fields but the hash itself, keys sorted. */
export function recordHash(record: Omit<HistoryRecord, 'hash'> | HistoryRecord): string {
  const { hash: _ignored, ...rest } = record as HistoryRecord;
  return createHash('sha256').update(stableJson(rest)).digest('hex');
}

/** Seals a draft as the record after `last` (none: the first). */
export function chainRecord(
  draft: HistoryDraft,
  last: { seq: number; hash: string } | undefined,
  at: string,
): HistoryRecord {
  const unsealed = {
    ...draft,
    format_version: historyFormatVersion,
    seq: (last?.seq ?? 0) + 1,
    prev: last?.hash ?? null,
    at,
  } as Omit<HistoryRecord, 'hash'>;
  return { ...unsealed, hash: recordHash(unsealed) } as HistoryRecord;
}

/** A stored line as a record, or undefined when it is not one (damaged). */
export function parseHistoryLine(line: string): HistoryRecord | undefined {
  try {
    const record = JSON.parse(line) as Partial<HistoryRecord> | null;
    if (
      record === null ||
      typeof record !== 'object' ||
      typeof record.seq !== 'number' ||
      typeof record.hash !== 'string' ||
      typeof record.type !== 'string'
    )
      return undefined;
    return record as HistoryRecord;
  } catch {
    return undefined;
  }
}

/** The records of stored lines, oldest first; a damaged line is left out (`verifyHistory` names it). */
export function parseHistory(lines: readonly string[]): HistoryRecord[] {
  return lines.map(parseHistoryLine).filter((record): record is HistoryRecord => record !== undefined);
}

export type HistoryVerdict =
  | {
      ok: true;
      count: number;
      first?: number;
      last?: number;
      /** Records before `first` were dropped by retention (the ledger says so when it anchors the history). */
      trimmed: boolean;
      /** The ledger anchors the history's end (ledgers written before the anchor do not). */
      anchored: boolean;
    }
  /**
   * `problem`: the whole sentence of what does not fit. `position`: the 1-based line; `seq`: the
   * record's number when it still reads as one (neither when the end or the whole history is missing).
   */
  | { ok: false; problem: string; position?: number; seq?: number };

/** What the ledger says of its history: its anchored end, and its serial (how many times it was written). */
export interface HistoryAnchor {
  head?: HistoryHead | undefined;
  serial: number;
}

/**
 * Checks the chain: every record reads, its hash is its own, its number follows the one before and
 * its `prev` is that one's hash. With the ledger's anchor it also checks the ends: the newest record
 * the ledger anchored is there with its hash (none removed from the end, the history not emptied or
 * deleted), and the oldest kept is the one retention kept (none removed from the start). A record
 * appended after the anchor (a run stopped between the two writes) is accepted: it chains.
 */
export function verifyHistory(lines: readonly string[], anchor?: HistoryAnchor): HistoryVerdict {
  let before: HistoryRecord | undefined;
  let first: HistoryRecord | undefined;
  const records: HistoryRecord[] = [];
  for (const [index, line] of lines.entries()) {
    const position = index + 1;
    const record = parseHistoryLine(line);
    if (!record)
      return {
        ok: false,
        position,
        problem: `line ${position} does not fit: it is not a history record (not JSON, or fields missing)`,
      };
    const misfit = (reason: string) =>
      ({
        ok: false,
        position,
        seq: record.seq,
        problem: `record #${record.seq} (line ${position}) does not fit: ${reason}`,
      }) as const;
    if (recordHash(record) !== record.hash)
      return misfit('its content does not match its hash (it was edited after it was written)');
    if (before) {
      if (record.seq !== before.seq + 1)
        return misfit(
          `it follows #${before.seq}, so it should be #${before.seq + 1} (a record was removed or inserted)`,
        );
      if (record.prev !== before.hash)
        return misfit(
          `it does not carry the hash of #${before.seq} (that record was rewritten, or this one was moved)`,
        );
    } else if ((record.seq === 1) !== (record.prev === null)) {
      return misfit(
        record.seq === 1
          ? 'as the first record it must not name one before it'
          : 'it claims to be the first record ever, but its number is not 1',
      );
    }
    first ??= record;
    before = record;
    records.push(record);
  }
  const ends = anchor ? endProblem(records, anchor) : undefined;
  if (ends) return ends;
  return {
    ok: true,
    count: lines.length,
    ...(first ? { first: first.seq } : {}),
    ...(before ? { last: before.seq } : {}),
    trimmed: first !== undefined && first.seq > 1,
    anchored: anchor?.head !== undefined,
  };
}

/** What the ledger's anchor says is missing from a chain that holds together, if anything. */
function endProblem(records: readonly HistoryRecord[], anchor: HistoryAnchor): HistoryVerdict | undefined {
  const { head, serial } = anchor;
  const last = records[records.length - 1];
  const first = records[0];
  if (!head) {
    // A ledger from before the anchor: only a history lost whole can be seen, by the ledger's writes.
    if (!last && serial > 0)
      return {
        ok: false,
        problem: `the history holds no records, but the ledger is at serial ${serial} (it was written ${serial} time${serial === 1 ? '' : 's'}): the history was lost or never kept with the state`,
      };
    return undefined;
  }
  if (head.seq === 0) return undefined;
  if (!last || !first)
    return {
      ok: false,
      seq: head.seq,
      problem: `the history holds no records, but the ledger anchors #${head.seq} as its newest (${head.count} kept): it was emptied or deleted`,
    };
  if (last.seq < head.seq)
    return {
      ok: false,
      seq: head.seq,
      position: records.length,
      problem: `the history ends at #${last.seq}, but the ledger anchors #${head.seq} as its newest: ${last.seq + 1 === head.seq ? `#${head.seq} was` : `#${last.seq + 1} to #${head.seq} were`} removed from its end`,
    };
  const anchored = records.find((record) => record.seq === head.seq);
  if (anchored && anchored.hash !== head.hash)
    return {
      ok: false,
      seq: head.seq,
      position: records.indexOf(anchored) + 1,
      problem: `record #${head.seq} is not the one the ledger anchored (its hash differs): the history's end was rewritten`,
    };
  if (head.first > 0 && first.seq > head.first)
    return {
      ok: false,
      seq: first.seq,
      position: 1,
      problem: `the history starts at #${first.seq}, but retention kept it from #${head.first}: ${head.first + 1 === first.seq ? `#${head.first} was` : `#${head.first} to #${first.seq - 1} were`} removed from its start, not by retention`,
    };
  return undefined;
}

/**
 * Why record #`seq` cannot be trusted, or undefined when it can: it is not in a history that
 * verifies, or it is the record `verify` names, or the record after it (or the ledger's anchor) does
 * not vouch for its hash. A revert acts only on a record this accepts.
 */
export function untrustedRecord(lines: readonly string[], anchor: HistoryAnchor, seq: number): string | undefined {
  const verdict = verifyHistory(lines, anchor);
  if (verdict.ok) return undefined;
  const named = verdict.seq;
  // A record rewritten with its hash made again breaks the link of the one after it, or the anchor.
  if (named === seq || named === seq + 1 || named === undefined || verdict.position === undefined)
    return verdict.problem;
  // Damage elsewhere: the chain up to and after #seq still vouches for it only when the damage is later.
  const records = parseHistory(lines);
  const index = records.findIndex((record) => record.seq === seq);
  return index >= 0 && verdict.position > index + 2 ? undefined : verdict.problem;
}

/** The records that concern `address`: applies that changed it, drift seen on it, its registry events. */
export function recordsOf(records: readonly HistoryRecord[], address: string): HistoryRecord[] {
  return records.filter((record) => {
    switch (record.type) {
      case 'apply':
        return record.changes.some((change) => change.address === address);
      case 'state_edit':
        return record.edits.some((edit) => edit.address === address || edit.to === address);
      case 'drift':
        return record.drifted.some((item) => item.address === address);
      case 'registry':
        return record.address === address;
      case 'drift_ack':
        return record.ack.address === address;
      default:
        return false;
    }
  });
}
