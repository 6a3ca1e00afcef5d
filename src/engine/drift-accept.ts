// `drift --write`: which values of the manifests to rewrite so they say what the account now holds,
// for the changes made outside telform. A field is accepted when the live value differs both from
// what telform last applied (so the change is the account's, not the manifest's) and from the
// manifest (so there is something to write). Pure: the manifest side does the writing.
import type { SourcePlace } from '../util/errors.js';
import { TelformError } from '../util/errors.js';
import { suggest } from '../util/suggest.js';
import type { Ledger } from '../state/ledger.js';
import { desiredSpecOf, liveSpecOf, secretsOf } from './change-fields.js';
import { changedFieldsOf, comparable } from './diff.js';
import type { PlannerKinds } from './model.js';
import type { Plan } from './plan-types.js';

/** A field to write: the live value (references as `{ ref }`), or `undefined` to remove the field. */
export interface AcceptedField {
  field: string;
  value: unknown;
}

export interface AcceptedResource {
  address: string;
  /** Where the resource is declared (its metadata.name). */
  source: SourcePlace;
  fields: AcceptedField[];
}

export interface DriftAcceptance {
  resources: AcceptedResource[];
  /** What is not written, and why (write-only fields, resources deleted outside telform). */
  notes: string[];
}

/** `only`: accept the changes of these addresses only (`--accept`, repeatable); empty: all of them. */
export function acceptDrift(
  plan: Plan,
  ledger: Ledger,
  kindsByName: PlannerKinds,
  only: readonly string[] = [],
): DriftAcceptance {
  const drifted = plan.changes.filter((change) => change.drifted === true);
  const addresses = new Set(drifted.map((change) => change.address));
  for (const address of only) {
    if (addresses.has(address)) continue;
    const hint = suggest(address, addresses.keys());
    const known =
      addresses.size > 0
        ? `changed outside telform: ${[...addresses].sort().join(', ')}`
        : 'nothing was changed outside telform';
    throw new TelformError(
      'bad_option',
      `--accept ${address}: not a resource changed outside telform${hint ? `; did you mean ${hint}?` : ''} (${known})`,
    );
  }
  const resources: AcceptedResource[] = [];
  const notes: string[] = [];
  for (const change of drifted) {
    if (only.length > 0 && !only.includes(change.address)) continue;
    const kind = kindsByName.get(change.kind);
    const entry = ledger.resources[change.address];
    const live = liveSpecOf(change);
    const desired = desiredSpecOf(change);
    if (!live || !desired || !kind || !entry) {
      notes.push(
        `${change.address} was deleted outside telform; its document is left as it is (remove it to accept that, or apply to create it again)`,
      );
      continue;
    }
    const liveForm = comparable(live, kind);
    const byAccount = new Set(changedFieldsOf(liveForm, comparable(entry.applied_spec, kind)));
    const fields = changedFieldsOf(liveForm, comparable(desired, kind))
      .filter((field) => byAccount.has(field) && !kind.secretFields.includes(field))
      .map((field) => ({ field, value: liveForm[field] === undefined ? undefined : live[field] }));
    for (const field of Object.keys(secretsOf(change) ?? {})) {
      notes.push(
        `${change.address}: ${field} is write-only (the account never shows it), so it is not written; the manifest keeps its source`,
      );
    }
    if (fields.length === 0) continue;
    if (!change.source) {
      notes.push(`${change.address}: not declared in a manifest file, so nothing is written`);
      continue;
    }
    resources.push({ address: change.address, source: change.source, fields });
  }
  return { resources, notes };
}
