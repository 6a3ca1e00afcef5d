// What a snapshot (`telform snapshot`, a replica of the account for rehearsals and tests) keeps of a
// kind's objects, declared by the kind (`Kind.snapshot`): where the account lists them, the collection
// of the emulator's seed format that holds them, and the fields kept, each with the type it must have.
// `account-records.ts` lists the collections and `run/snapshot-format.ts` writes them; neither names a kind.

export type SnapshotJson = null | boolean | number | string | SnapshotJson[] | { [key: string]: SnapshotJson };
type SnapshotFieldType = 'text' | 'flag' | 'number' | 'object' | 'list';
type SnapshotFields = Readonly<Record<string, SnapshotFieldType>>;
import type { ApiClient } from '../api/client.js';

type Row = Readonly<Record<string, unknown>>;

export interface KindSnapshot {
  /** The collection's name in the seed format (`trunks`, `numbers`), unique in the catalog. */
  readonly collection: string;
  /** Where the account lists the objects, the key of the list's items and the field that is an object's id. */
  readonly path: string;
  readonly itemsKey: string;
  readonly idField: string;
  /**
   * Where the seed holds them: `existing` (objects the account already holds, kept as the API read
   * them), or a `section` of the seed of its own named as the collection (`applications`, `numbers`),
   * which the emulator seeds its own way.
   */
  readonly seed: 'existing' | 'section';
  /** The fields kept, with their types (a value of another type is left out, as is every other field). */
  readonly fields: SnapshotFields;
  /**
   * What an object becomes when its fields' types do not say it all (an ACL's entries, a number's
   * row): given the record as read and what `fields` kept of it. Left out: what `fields` kept.
   */
  readonly project?: (record: Row, kept: Record<string, SnapshotJson>) => SnapshotJson;
  /**
   * What the list's rows leave in doubt, read further before they are kept (a number shown `UNREGISTERED`
   * beside a campaign id: its campaign's number route says whether the link failed). Returns the rows as
   * the account holds them.
   */
  readonly settle?: (client: ApiClient, rows: Row[]) => Promise<Row[]>;
}

/** Text fields by name, and `others` with their own types. */
export function textFields(names: readonly string[], others: SnapshotFields = {}): SnapshotFields {
  return { ...Object.fromEntries(names.map((name) => [name, 'text' as const])), ...others };
}

/** The fields of `record` that `fields` names and that have its type; anything else is left out. */
export function keepFields(record: Row, fields: SnapshotFields): Record<string, SnapshotJson> {
  const out: Record<string, SnapshotJson> = {};
  for (const [field, type] of Object.entries(fields)) {
    const value = record[field];
    if (value === undefined || value === null) continue;
    if (type === 'text' && typeof value === 'string') out[field] = value;
    else if (type === 'flag' && typeof value === 'boolean') out[field] = value;
    else if (type === 'flag' && (value === 'true' || value === 'false')) out[field] = value === 'true';
    else if (type === 'number' && typeof value === 'number') out[field] = value;
    else if (type === 'number' && typeof value === 'string' && /^[0-9]+$/.test(value)) out[field] = Number(value);
    else if (type === 'object' && typeof value === 'object' && !Array.isArray(value)) out[field] = jsonOf(value);
    else if (type === 'list' && Array.isArray(value)) out[field] = jsonOf(value);
    else if (type === 'list' && typeof value === 'string') out[field] = value.split(',').filter((item) => item !== '');
  }
  return out;
}

/** A value as plain JSON (a copy). */
export function jsonOf(value: unknown): SnapshotJson {
  return JSON.parse(JSON.stringify(value ?? null)) as SnapshotJson;
}
