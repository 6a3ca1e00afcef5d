// The snapshot file (`telform snapshot`): the account's objects in the emulator's seed format (objects it
// "already holds", kept as given), with a header saying what was read, when and from where. Each record is
// cut to the fields that format documents (docs/emulator.md, snapshots): production's shapes survive —
// legacy values, fields the API did not return stay absent — and nothing write-only is ever in it, since
// the API never returns a password and the emulator gives each held credential a random one.
import type { AccountReading } from '../resources/account-records.js';
import { catalog, type KindCatalog } from '../resources/index.js';
import { keepFields, type SnapshotJson } from '../resources/snapshot-record.js';

type Json = SnapshotJson;

export const snapshotFormat = 'telform-snapshot';
export const snapshotVersion = 1;

export interface SnapshotHeaderInput {
  takenAt: string;
  /** How the ledger names the endpoint (`local` or a base URL). */
  endpoint: string;
  account: string;
}

/**
 * The snapshot of one account as the JSON document the emulator loads: each kind's records (its
 * `snapshot`) in the collection it names, under `existing` or in a section of their own, and the
 * products the account has (a product is named as the emulator's seed names it: `sip-trunking`, `10dlc`).
 */
export function snapshotDocument(
  reading: AccountReading,
  header: SnapshotHeaderInput,
  kinds: KindCatalog = catalog,
  brandsMade: ReadonlyMap<string, { brand: string }> = new Map(),
): Record<string, Json> {
  const skippedProducts = new Set(reading.skipped.map((skip) => skip.collection.product));
  const products = new Set<string>();
  for (const kind of kinds.kinds) {
    const { product } = kind.live;
    if (product !== undefined && !skippedProducts.has(product))
      products.add(product.toLowerCase().replaceAll(' ', '-'));
  }
  const existing: Record<string, Json> = {};
  const sections: Record<string, Json> = {};
  for (const { snapshot } of kinds.kinds) {
    const records = reading.records[snapshot.collection] ?? [];
    const held = records.map((record) => {
      const kept = keepFields(record, snapshot.fields);
      return snapshot.project ? snapshot.project(record, kept) : kept;
    });
    if (snapshot.seed === 'section') sections[snapshot.collection] = held;
    else if (held.length > 0) existing[snapshot.collection] = held;
  }
  markProfilesUsed(existing, reading, brandsMade);
  return {
    format: snapshotFormat,
    version: snapshotVersion,
    taken_at: header.takenAt,
    endpoint: header.endpoint,
    account: header.account,
    products: [...products],
    skipped: reading.skipped.map((skip) => `${skip.collection.path}: ${skip.message}`),
    existing,
    ...sections,
  };
}

/**
 * Each profile that registered a brand says which (`used_by_brand_id`): the account's brands tell it for
 * the live ones, the state's ledger and history (`brandsMade`) for brands deleted since. The API refuses
 * a second brand from such a profile and no read says which profiles did, so the replica learns it here.
 */
function markProfilesUsed(
  existing: Record<string, Json>,
  reading: AccountReading,
  brandsMade: ReadonlyMap<string, { brand: string }>,
): void {
  const byProfile = new Map<string, string>();
  for (const [profile, made] of brandsMade) byProfile.set(profile, made.brand);
  for (const brand of reading.records['brands'] ?? []) {
    if (typeof brand['profile_uuid'] === 'string' && typeof brand['brand_id'] === 'string')
      byProfile.set(brand['profile_uuid'], brand['brand_id']);
  }
  const profiles = existing['profiles'];
  if (!Array.isArray(profiles)) return;
  for (const profile of profiles) {
    if (profile === null || typeof profile !== 'object' || Array.isArray(profile)) continue;
    const brand = typeof profile['profile_uuid'] === 'string' ? byProfile.get(profile['profile_uuid']) : undefined;
    if (brand !== undefined) profile['used_by_brand_id'] = brand;
  }
}
