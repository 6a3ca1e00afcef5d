import type { Ledger, LedgerEntry } from '../state/ledger.js';
import { describeSecretRef } from '../engine/secret-source.js';
import { printable, printableJson } from '../util/printable.js';
import { describeScope } from '../resources/ownership-scope.js';

function sortedEntries(ledger: Ledger): Array<[string, LedgerEntry]> {
  return Object.entries(ledger.resources).sort(([a], [b]) => (a < b ? -1 : 1));
}

/** `telform state list`: one line per managed resource, its address and live id. */
export function renderStateListText(ledger: Ledger): string {
  const entries = sortedEntries(ledger);
  const width = Math.max(0, ...entries.map(([address]) => address.length));
  return entries.map(([address, entry]) => `${printable(address).padEnd(width)}  ${printable(entry.id)}\n`).join('');
}

/** `telform state list --format json`: the state's account and serial, and each managed resource's address and live id. */
export function renderStateListJson(ledger: Ledger): string {
  const resources = sortedEntries(ledger).map(([address, entry]) => ({
    address,
    id: entry.id,
    ...(entry.protect ? { protect: true } : {}),
  }));
  const listing = {
    account: ledger.account,
    endpoint: ledger.endpoint,
    serial: ledger.serial,
    lineage: ledger.lineage,
    resources,
  };
  return `${printableJson(JSON.stringify(listing, null, 2))}\n`;
}

/** The line `state list` prints on stderr under the table: how many, the serial, the account, the last hand-over. */
export function stateListSummary(ledger: Ledger): string {
  const entries = sortedEntries(ledger);
  const summary = `${entries.length} managed resource${entries.length === 1 ? '' : 's'} (state serial ${ledger.serial}, account ${ledger.account} at ${ledger.endpoint})`;
  // The lineage is what an ownership marker and a refusal name; the last hand-over says whether this state claimed the account.
  const last = ledger.ownership?.at(-1);
  // A state that owns part of the account says which part (its scope).
  const scope = last?.scope ? describeScope(last.scope) : undefined;
  const event = !last
    ? ''
    : last.action === 'claim'
      ? `claimed the account at ${printable(last.at)}${scope ? ` (scope ${scope})` : ''}`
      : scope
        ? `released part of the account at ${printable(last.at)} (keeps ${scope})`
        : `released the account at ${printable(last.at)}`;
  const owner = event ? `; ${event}` : '';
  return `${summary}\nlineage ${printable(ledger.lineage)}${owner}`;
}

/** `telform state show`: the entry as JSON, each secret by where it came from, never its fingerprint. */
export function renderStateEntry(address: string, entry: LedgerEntry): string {
  // The HMAC is left out (it helps nobody reading it); where the value came from is not secret.
  const secrets = Object.fromEntries(
    Object.entries(entry.secrets).map(([field, { source }]) => [
      field,
      source ? `(fingerprint, ${describeSecretRef(source)})` : '(fingerprint)',
    ]),
  );
  return `${printableJson(JSON.stringify({ address, ...entry, secrets }, null, 2))}\n`;
}

/** `telform state unprotect`: what changed, or that nothing needed to. */
export function renderUnprotected(address: string, lifted: boolean): string {
  return lifted
    ? `${address} is no longer protected in the state (a manifest that still says metadata.protect: true protects it again)\n`
    : `${address} is not protected in the state\n`;
}

/** `telform state mv`: the move, and a note when the live object keeps a name the manifest may not say. */
export function renderMoved(moved: { from: string; to: string; nameField?: string; liveName?: string }): {
  stdout: string;
  note?: string;
} {
  const stdout = `moved ${moved.from} to ${moved.to}\n`;
  const { nameField, liveName } = moved;
  const name = moved.to.slice(moved.to.indexOf('/') + 1);
  if (nameField === undefined || liveName === undefined || liveName === name) return { stdout };
  const live = printable(liveName);
  return {
    stdout,
    note: `the account is unchanged: the live object keeps its ${nameField} "${live}", which the state now records for ${moved.to} while its manifest leaves ${nameField} out; to rename the live object too, set ${nameField}: ${name} in its spec and apply`,
  };
}
