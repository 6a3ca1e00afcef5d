import type { Ledger, LedgerEntry } from '../state/ledger.js';
import { describeSecretRef } from '../engine/secret-source.js';
import { printable, printableJson } from '../util/printable.js';

/** `telform state list`: one line per managed resource (address, live id) and a summary line. */
export function renderStateList(ledger: Ledger): { table: string; summary: string } {
  const entries = Object.entries(ledger.resources).sort(([a], [b]) => (a < b ? -1 : 1));
  const width = Math.max(0, ...entries.map(([address]) => address.length));
  const table = entries.map(([address, entry]) => `${printable(address).padEnd(width)}  ${printable(entry.id)}\n`).join('');
  const summary = `${entries.length} managed resource${entries.length === 1 ? '' : 's'} (state serial ${ledger.serial}, account ${ledger.account} at ${ledger.endpoint})`;
  // The lineage is what an ownership marker and a refusal name; the last hand-over says whether this state claimed the account.
  const last = ledger.ownership?.at(-1);
  const owner = last ? `; ${last.action === 'claim' ? 'claimed' : 'released'} the account at ${printable(last.at)}` : '';
  return { table, summary: `${summary}\nlineage ${printable(ledger.lineage)}${owner}` };
}

/** `telform state show`: the entry as JSON, each secret by where it came from, never its fingerprint. */
export function renderStateEntry(address: string, entry: LedgerEntry): string {
  // The HMAC is left out (it helps nobody reading it); where the value came from is not secret.
  const secrets = Object.fromEntries(
    Object.entries(entry.secrets).map(([field, { source }]) => [field, source ? `(fingerprint, ${describeSecretRef(source)})` : '(fingerprint)']),
  );
  return `${printableJson(JSON.stringify({ address, ...entry, secrets }, null, 2))}\n`;
}
