// What part of an account a ledger owns: a set of kinds, optionally narrowed to names that start
// with a prefix. The ownership marker carries it in its name, so every ledger can see every claim.
import { TelformError } from '../util/errors.js';

/**
 * A scope: `kinds` (sorted kind names) or every kind, and optionally a name prefix. Objects of a
 * scope with a prefix are those whose API name (`name`, `username`, `brand_alias`, …) starts with it.
 */
export interface Scope {
  kinds: readonly string[] | 'everything';
  prefix?: string;
}

export const everything: Scope = { kinds: 'everything' };

/**
 * Two letters per kind, so a marker naming every kind and a prefix stays within the API's 120
 * characters for an ACL name. A code this table does not know (a newer telform's kind) is kept
 * as it is: it overlaps only the same code.
 */
const codes: Readonly<Record<string, string>> = {
  SipCredential: 'sc',
  SipIpAcl: 'sa',
  ApplicationSipAuth: 'ap',
  TrunkCredential: 'tc',
  TrunkIpAcl: 'ta',
  OriginationUri: 'ou',
  Trunk: 'tr',
  PhoneNumber: 'pn',
  Profile: 'pf',
  Brand: 'br',
  Campaign: 'cp',
};
const kindOfCode = new Map(Object.entries(codes).map(([kind, code]) => [code, kind]));

/** Every kind a scope can name (the catalog's, checked by a test). */
export const scopeKinds: readonly string[] = Object.keys(codes);

/** Named sets of kinds: a team's share of an account. */
export const scopePresets: Readonly<Record<string, readonly string[]>> = {
  voice: [
    'ApplicationSipAuth',
    'OriginationUri',
    'SipCredential',
    'SipIpAcl',
    'Trunk',
    'TrunkCredential',
    'TrunkIpAcl',
  ],
  messaging: ['Brand', 'Campaign', 'PhoneNumber', 'Profile'],
};

/** A prefix is short (the marker's name must fit 120 characters) and plain (it is read back from a name). */
export const maxPrefixLength = 20;
const prefixPattern = /^[A-Za-z0-9._-]+$/;

/**
 * Parses `--scope` items: presets, kind names and `prefix=TEXT`, comma-separated or repeated.
 * `everything` (or nothing) is the whole account.
 */
export function parseScope(items: readonly string[]): Scope {
  const words = items
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter(Boolean);
  const kinds = new Set<string>();
  // A prefix alone narrows every kind.
  let all = words.every((word) => word.startsWith('prefix='));
  let prefix: string | undefined;
  for (const word of words) {
    if (word.startsWith('prefix=')) {
      const value = word.slice('prefix='.length);
      if (prefix !== undefined)
        throw new TelformError('bad_option', `--scope: prefix is given twice (${prefix}, ${value})`);
      if (!prefixPattern.test(value) || value.length > maxPrefixLength) {
        throw new TelformError(
          'bad_option',
          `--scope prefix=${value}: a prefix is 1 to ${maxPrefixLength} letters, digits, ".", "_" or "-"`,
        );
      }
      prefix = value;
    } else if (word === 'everything') all = true;
    else if (scopePresets[word]) for (const kind of scopePresets[word] ?? []) kinds.add(kind);
    else if (codes[word]) kinds.add(word);
    else {
      throw new TelformError(
        'bad_option',
        `--scope ${word}: not a preset or a kind (presets: everything, ${Object.keys(scopePresets).join(', ')}; kinds: ${scopeKinds.join(', ')}; and prefix=TEXT)`,
      );
    }
  }
  const named = all || kinds.size === scopeKinds.length ? 'everything' : [...kinds].sort();
  return { kinds: named, ...(prefix === undefined ? {} : { prefix }) };
}

/** Whether the scope is the whole account. */
export function isEverything(scope: Scope): boolean {
  return scope.kinds === 'everything' && scope.prefix === undefined;
}

function kindsOf(scope: Scope): readonly string[] {
  return scope.kinds === 'everything' ? scopeKinds : scope.kinds;
}

/** Whether a kind is in the scope (whatever the names). */
export function scopeHasKind(scope: Scope, kind: string): boolean {
  return scope.kinds === 'everything' || scope.kinds.includes(kind);
}

/** Whether an object of `kind` whose API name is `name` is in the scope. */
export function scopeHolds(scope: Scope, kind: string, name: string | undefined): boolean {
  if (!scopeHasKind(scope, kind)) return false;
  return scope.prefix === undefined || (name !== undefined && name.startsWith(scope.prefix));
}

/**
 * What two scopes share, in words (`Trunk, TrunkIpAcl`, with the names both prefixes allow), or
 * undefined when they are disjoint: no kind in common, or prefixes neither of which starts the other.
 */
export function scopeOverlap(a: Scope, b: Scope): string | undefined {
  const theirs = new Set(kindsOf(b));
  const shared = kindsOf(a).filter((kind) => theirs.has(kind));
  if (shared.length === 0) return undefined;
  const prefixes = [a.prefix, b.prefix].filter((prefix): prefix is string => prefix !== undefined);
  const longest = prefixes.sort((x, y) => y.length - x.length)[0];
  if (longest !== undefined && !prefixes.every((prefix) => longest.startsWith(prefix))) return undefined;
  const kinds = shared.length === scopeKinds.length ? 'every kind' : [...shared].sort().join(', ');
  return longest === undefined ? kinds : `${kinds} named ${longest}…`;
}

/** The scope in words, for messages: `everything`, or the kinds and the prefix. */
export function describeScope(scope: Scope): string {
  const kinds = scope.kinds === 'everything' ? 'every kind' : (presetName(scope.kinds) ?? scope.kinds.join(', '));
  if (scope.prefix === undefined) return scope.kinds === 'everything' ? 'everything' : kinds;
  return `${kinds} named ${scope.prefix}…`;
}

function presetName(kinds: readonly string[]): string | undefined {
  const key = [...kinds].sort().join(',');
  const found = Object.entries(scopePresets).find(([, preset]) => [...preset].sort().join(',') === key);
  return found ? `${found[0]} (${key.split(',').join(', ')})` : undefined;
}

/** The scope as the marker's name carries it after the lineage: empty for everything. */
export function scopeSuffix(scope: Scope): string {
  const kinds =
    scope.kinds === 'everything'
      ? ''
      : ` kinds=${scope.kinds
          .map((kind) => codes[kind] ?? kind)
          .sort()
          .join('.')}`;
  return `${kinds}${scope.prefix === undefined ? '' : ` prefix=${scope.prefix}`}`;
}

/** The suffix of a marker's name back as a scope; undefined when it is not one telform writes. */
export function parseScopeSuffix(suffix: string): Scope | undefined {
  const match = /^(?: kinds=([a-z]{2}(?:\.[a-z]{2})*))?(?: prefix=([A-Za-z0-9._-]{1,20}))?$/.exec(suffix);
  if (!match) return undefined;
  const kinds =
    match[1] === undefined
      ? 'everything'
      : [...new Set(match[1].split('.').map((code) => kindOfCode.get(code) ?? code))].sort();
  return { kinds, ...(match[2] === undefined ? {} : { prefix: match[2] }) };
}

/** Whether two scopes are the same. */
export function sameScope(a: Scope, b: Scope): boolean {
  return scopeSuffix(a) === scopeSuffix(b);
}
