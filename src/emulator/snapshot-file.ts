// Snapshots (`telform snapshot`): a replica of a real account in the seed format, with a header. The
// emulator loads one given as `--data FILE` (or `--seed FILE`) into memory and never writes it back: a
// snapshot is evidence of what the account held when it was taken, and a rehearsal must not change it.
import { readFile } from 'node:fs/promises';
import type { Product } from './options.js';

const snapshotFormat = 'telform-snapshot';
const snapshotVersion = 1;
/** The header's keys, beside the seed's sections. */
const snapshotHeaderKeys = ['format', 'version', 'taken_at', 'endpoint', 'account', 'products', 'skipped'] as const;

export interface SnapshotHeader {
  takenAt: string | undefined;
  account: string | undefined;
  /** The products the account had when it was taken; undefined when the header does not say. */
  products: Product[] | undefined;
}

/** Whether `file` holds a snapshot rather than the emulator's own state (a missing file is not one). */
export async function isSnapshotFile(file: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return false;
  }
  // JSON as telform writes it, or YAML by hand: the header's first key says what the file is.
  return /^\s*\{?\s*"?format"?\s*:\s*"?telform-snapshot"?/.test(text);
}

/** Takes the header off a parsed snapshot, checking its format and version; `fail` places a message. */
export function takeSnapshotHeader(
  input: Record<string, unknown>,
  fail: (key: string, why: string) => never,
): SnapshotHeader {
  if (input.format !== snapshotFormat) fail('format', `format must be ${snapshotFormat}`);
  if (input.version !== snapshotVersion)
    fail('version', `this telform reads snapshots of version ${snapshotVersion}, not ${String(input.version)}`);
  const products = input.products;
  if (
    products !== undefined &&
    (!Array.isArray(products) || products.some((item) => item !== 'sip-trunking' && item !== '10dlc'))
  ) {
    fail('products', 'products must be a list of sip-trunking and 10dlc');
  }
  const header: SnapshotHeader = {
    takenAt: typeof input.taken_at === 'string' ? input.taken_at : undefined,
    account: typeof input.account === 'string' ? input.account : undefined,
    products: products === undefined ? undefined : [...(products as Product[])],
  };
  for (const key of snapshotHeaderKeys) delete input[key];
  return header;
}
