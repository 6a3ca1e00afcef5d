// The history a state keeps beside its ledger (docs/state-and-safety.md, history): one record per
// apply, state edit, drift seen and registry event, appended and never rewritten. Each record carries
// the hash of the one before it, so an edited, removed or inserted record breaks the chain and
// `telform history verify` names the first record that does not fit. Like the ledger it never holds a
// secret: write-only fields appear only as the fingerprints the ledger already keeps.
import { createHash } from 'node:crypto';
import { stableJson } from '../util/stable-json.js';
import type { SecretFingerprint } from './ledger.js';

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
      /** A rollout's wave (`apply --accounts --waves`). */
      wave?: { number: number; of: number };
      /** The approval rules the plan passed, with the signed approvals (absent in records before them). */
      signoff?: HistorySignoff;
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
  wave?: { number: number; of: number };
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
  | { ok: true; count: number; first?: number; last?: number; trimmed: boolean }
  /** `position`: 1-based line; `seq`: the record's number when it still reads as one. */
  | { ok: false; position: number; seq?: number; reason: string };

/**
 * Checks the chain: every record reads, its hash is its own, its number follows the one before and
 * its `prev` is that one's hash. The first record kept may follow one retention dropped (`trimmed`):
 * its `prev` cannot be checked, only that it is not claiming to be the first ever.
 */
export function verifyHistory(lines: readonly string[]): HistoryVerdict {
  let before: HistoryRecord | undefined;
  let first: HistoryRecord | undefined;
  for (const [index, line] of lines.entries()) {
    const position = index + 1;
    const record = parseHistoryLine(line);
    if (!record) return { ok: false, position, reason: 'it is not a history record (not JSON, or fields missing)' };
    const named = { position, seq: record.seq };
    if (recordHash(record) !== record.hash)
      return {
        ok: false,
        ...named,
        reason: 'its content does not match its hash (it was edited after it was written)',
      };
    if (before) {
      if (record.seq !== before.seq + 1)
        return {
          ok: false,
          ...named,
          reason: `it follows #${before.seq}, so it should be #${before.seq + 1} (a record was removed or inserted)`,
        };
      if (record.prev !== before.hash)
        return {
          ok: false,
          ...named,
          reason: `it does not carry the hash of #${before.seq} (that record was rewritten, or this one was moved)`,
        };
    } else if ((record.seq === 1) !== (record.prev === null)) {
      return {
        ok: false,
        ...named,
        reason:
          record.seq === 1
            ? 'as the first record it must not name one before it'
            : 'it claims to be the first record ever, but its number is not 1',
      };
    }
    first ??= record;
    before = record;
  }
  return {
    ok: true,
    count: lines.length,
    ...(first ? { first: first.seq } : {}),
    ...(before ? { last: before.seq } : {}),
    trimmed: first !== undefined && first.seq > 1,
  };
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
