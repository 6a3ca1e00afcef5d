import { applicationSipAuth } from './application-sip-auth.js';
import { brand } from './brand.js';
import { campaign } from './campaign.js';
import type { Kind } from './kind.js';
import { originationUri } from './origination-uri.js';
import { phoneNumber } from './phone-number.js';
import { profile } from './profile.js';
import { trafficProblems } from './traffic.js';
import { sipCredential } from './sip-credential.js';
import { sipIpAcl } from './sip-ip-acl.js';
import { trunk } from './trunk.js';
import { trunkCredential } from './trunk-credential.js';
import { trunkIpAcl } from './trunk-ip-acl.js';

export type { Kind } from './kind.js';

/** The kinds of a catalog by name; built by `createKindCatalog`, which refuses duplicates. */
export interface KindCatalog {
  readonly kinds: readonly Kind[];
  get(name: string): Kind | undefined;
  readonly names: readonly string[];
}

/**
 * Builds a catalog from a list of kinds. A duplicate name, or a reference to a kind the list
 * does not hold, is a programming error and throws at start-up. That each field a kind names is in
 * its spec is checked by the kinds' template test instead: reading the specs here would build every
 * schema at start-up (`builtOnce` in kind.ts).
 */
export function createKindCatalog(kinds: readonly Kind[]): KindCatalog {
  const byName = new Map<string, Kind>();
  const byScopeCode = new Map<string, Kind>();
  const byCollection = new Map<string, Kind>();
  for (const kind of kinds) {
    if (byName.has(kind.name)) throw new Error(`kind ${kind.name} is registered twice`);
    byName.set(kind.name, kind);
    const { code } = kind.scope;
    if (!/^[a-z]{2}$/.test(code)) throw new Error(`kind ${kind.name}: scope code ${code} is not two small letters`);
    const holder = byScopeCode.get(code);
    if (holder) throw new Error(`kind ${kind.name}: scope code ${code} is ${holder.name}'s already`);
    byScopeCode.set(code, kind);
    const { collection } = kind.snapshot;
    const other = byCollection.get(collection);
    if (other) throw new Error(`kind ${kind.name}: snapshot collection ${collection} is ${other.name}'s already`);
    byCollection.set(collection, kind);
  }
  for (const kind of kinds) {
    for (const [field, target] of Object.entries(kind.references)) {
      if (!byName.has(target)) throw new Error(`kind ${kind.name}: ${field} refers to unknown kind ${target}`);
    }
    const [problem] = trafficProblems(kind, (name) => byName.get(name));
    if (problem !== undefined) throw new Error(problem);
  }
  return { kinds: [...kinds], get: (name) => byName.get(name), names: [...byName.keys()] };
}

/**
 * Every kind telform manages, in dependency order (what is referred to before what refers to it),
 * which is also the order of the JSON Schema. Adding a kind: its file, this list, its emulator route,
 * examples, tests and docs (docs/architecture.md, Adding a kind, counts them).
 */
export const catalog: KindCatalog = createKindCatalog([
  sipCredential,
  sipIpAcl,
  trunkCredential,
  trunkIpAcl,
  originationUri,
  trunk,
  profile,
  brand,
  campaign,
  phoneNumber,
  applicationSipAuth,
]);
