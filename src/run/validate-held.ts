// The held-value rule of `validate` (docs/real-accounts.md, held values): a value that breaks a create
// rule is a warning only when the state records that same object holding that same value (imported,
// adopted or applied as it is); otherwise it is an error, for a create or a change would be refused.
// The state is read as `plan` would find it (a file or a database workspace), never the account.
import path from 'node:path';
import { heldNote } from '../manifest/document.js';
import type { ManifestResource } from '../manifest/model.js';
import type { Problem } from '../manifest/problems.js';
import { openStateBackend, type StateLocation } from '../state/backends/registry.js';
import { parseLedger, type Ledger } from '../state/ledger.js';
import type { Environment } from './context.js';

/** What validate knows of the account: a ledger, no state yet, or none asked for (`--no-state`). */
type HeldWitness =
  { state: 'ledger'; ledger: Ledger; location: string } | { state: 'none'; location: string } | { state: 'off' };

/**
 * Reads the ledger at `location` (a file named relative to `cwd`), if there is one; an unreadable
 * state is the backend's one-line error.
 */
export async function readHeldWitness(location: StateLocation, env: Environment, cwd: string): Promise<HeldWitness> {
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(location.state);
  const backend = await openStateBackend(
    isUrl ? location : { ...location, state: path.resolve(cwd, location.state) },
    env,
  );
  // A file is named as given; a URL as the backend shows it (without its secrets).
  const shown = isUrl ? backend.location : location.state;
  try {
    const stored = await backend.read();
    if (stored.ledger === undefined) return { state: 'none', location: shown };
    return { state: 'ledger', ledger: parseLedger(stored.ledger, shown), location: shown };
  } finally {
    await backend.close();
  }
}

/**
 * The problems with each held-value warning judged against the state: kept a warning where the state
 * records the object holding that value, else made an error saying how the value could become known.
 */
export function judgeHeldValues(
  problems: readonly Problem[],
  resources: readonly ManifestResource[],
  witness: HeldWitness,
): Problem[] {
  if (!problems.some((problem) => problem.code === 'held_value')) return [...problems];
  const byAddress = new Map(resources.map((resource) => [resource.address, resource]));
  return problems.map((problem) => {
    if (problem.code !== 'held_value') return problem;
    const resource = problem.address === undefined ? undefined : byAddress.get(problem.address);
    const why = unheldReason(problem, resource, witness);
    if (why === undefined) return problem;
    return { ...problem, severity: 'error', code: 'rule', message: `${problem.message.replace(heldNote, '')}${why}` };
  });
}

/** Why the state cannot vouch for the value (the error's hint), or undefined when it records it held. */
function unheldReason(
  problem: Problem,
  resource: ManifestResource | undefined,
  witness: HeldWitness,
): string | undefined {
  const address = problem.address ?? 'the object';
  if (witness.state === 'off') return ' (--no-state: every object is new, and a new one must meet this rule)';
  if (witness.state === 'none')
    return ` (no state at ${witness.location}: a new object must meet this rule; if the account already holds this value, pass --state with the account's state, or run telform import so a state records it)`;
  const entry = witness.ledger.resources[address];
  if (!resource || !entry || entry.kind !== resource.kind)
    return ` (the state ${witness.location} records no ${address}: a new object must meet this rule; if the account already holds it, run telform import so the state records it)`;
  const field = /^spec\.([^.[]+)/.exec(problem.field ?? '')?.[1];
  // A rule about the whole spec (fields that go together) holds for the object the state records.
  if (field === undefined) return undefined;
  if (sameValue(resource.spec[field], entry.applied_spec[field])) return undefined;
  return ` (the state ${witness.location} records ${address} holding another value: a change of spec.${field} must meet this rule)`;
}

/** Compared as JSON with keys sorted: the manifest's and the state's forms of a value list keys in any order. */
function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : item,
  );
}
