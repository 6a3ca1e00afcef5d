// What part of an account a ledger owns: a set of kinds, optionally narrowed to names that start
// with a prefix. The ownership marker carries it in its name, so every ledger can see every claim.
import { TelformError } from '../util/errors.js';
import { catalog } from './index.js';

/**
 * A scope: `kinds` (sorted kind names) or every kind, and optionally a name prefix. Objects of a
 * scope with a prefix are those whose API name (`name`, `username`, `brand_alias`, …) starts with it.
 */
export interface Scope {
  kinds: readonly string[] | 'everything';
  prefix?: string;
}

export const everything: Scope = { kinds: 'everything' };

/** What scopes can name: the kinds of a catalog, their codes and the presets they make up. */
interface ScopeVocabulary {
  /** Every kind a scope can name, in the catalog's order. */
  readonly kinds: readonly string[];
  /** Named sets of kinds (sorted), in the order the catalog first names them. */
  readonly presets: Readonly<Record<string, readonly string[]>>;
  readonly codeOf: ReadonlyMap<string, string>;
  readonly kindOf: ReadonlyMap<string, string>;
}

/** The vocabulary of a list of kinds (`Kind.scope`; `createKindCatalog` has refused two kinds with one code). */
export function scopeVocabulary(
  kinds: readonly { name: string; scope: { code: string; preset: string } }[],
): ScopeVocabulary {
  const presets: Record<string, string[]> = {};
  for (const kind of kinds) (presets[kind.scope.preset] ??= []).push(kind.name);
  for (const members of Object.values(presets)) members.sort();
  return {
    kinds: kinds.map((kind) => kind.name),
    presets,
    codeOf: new Map(kinds.map((kind) => [kind.name, kind.scope.code])),
    kindOf: new Map(kinds.map((kind) => [kind.scope.code, kind.name])),
  };
}

const catalogScopes = scopeVocabulary(catalog.kinds);

/** Every kind a scope can name: the catalog's. */
export const scopeKinds: readonly string[] = catalogScopes.kinds;

/** Named sets of kinds: a team's share of an account. */
export const scopePresets: Readonly<Record<string, readonly string[]>> = catalogScopes.presets;

/** A prefix is short (the marker's name must fit 120 characters) and plain (it is read back from a name). */
export const maxPrefixLength = 20;
const prefixPattern = /^[A-Za-z0-9._-]+$/;

/**
 * Parses `--scope` items: presets, kind names and `prefix=TEXT`, comma-separated or repeated.
 * `everything` (or nothing) is the whole account.
 */
export function parseScope(items: readonly string[], vocabulary: ScopeVocabulary = catalogScopes): Scope {
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
    else if (Object.hasOwn(vocabulary.presets, word))
      for (const kind of vocabulary.presets[word] ?? []) kinds.add(kind);
    else if (vocabulary.codeOf.has(word)) kinds.add(word);
    else {
      throw new TelformError(
        'bad_option',
        `--scope ${word}: not a preset or a kind (presets: everything, ${Object.keys(vocabulary.presets).join(', ')}; kinds: ${vocabulary.kinds.join(', ')}; and prefix=TEXT)`,
      );
    }
  }
  const named = all || kinds.size === vocabulary.kinds.length ? 'everything' : [...kinds].sort();
  return { kinds: named, ...(prefix === undefined ? {} : { prefix }) };
}

/** Whether the scope is the whole account. */
export function isEverything(scope: Scope): boolean {
  return scope.kinds === 'everything' && scope.prefix === undefined;
}

function kindsOf(scope: Scope, vocabulary: ScopeVocabulary): readonly string[] {
  return scope.kinds === 'everything' ? vocabulary.kinds : scope.kinds;
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
export function scopeOverlap(a: Scope, b: Scope, vocabulary: ScopeVocabulary = catalogScopes): string | undefined {
  const theirs = new Set(kindsOf(b, vocabulary));
  const shared = kindsOf(a, vocabulary).filter((kind) => theirs.has(kind));
  if (shared.length === 0) return undefined;
  const prefixes = [a.prefix, b.prefix].filter((prefix): prefix is string => prefix !== undefined);
  const longest = prefixes.sort((x, y) => y.length - x.length)[0];
  if (longest !== undefined && !prefixes.every((prefix) => longest.startsWith(prefix))) return undefined;
  const kinds = shared.length === vocabulary.kinds.length ? 'every kind' : [...shared].sort().join(', ');
  return longest === undefined ? kinds : `${kinds} named ${longest}…`;
}

/** The scope in words, for messages: `everything`, or the kinds and the prefix. */
export function describeScope(scope: Scope, vocabulary: ScopeVocabulary = catalogScopes): string {
  const kinds =
    scope.kinds === 'everything' ? 'every kind' : (presetName(scope.kinds, vocabulary) ?? scope.kinds.join(', '));
  if (scope.prefix === undefined) return scope.kinds === 'everything' ? 'everything' : kinds;
  return `${kinds} named ${scope.prefix}…`;
}

function presetName(kinds: readonly string[], vocabulary: ScopeVocabulary): string | undefined {
  const key = [...kinds].sort().join(',');
  const found = Object.entries(vocabulary.presets).find(([, preset]) => [...preset].sort().join(',') === key);
  return found ? `${found[0]} (${key.split(',').join(', ')})` : undefined;
}

/** The scope as the marker's name carries it after the lineage: empty for everything. */
export function scopeSuffix(scope: Scope, vocabulary: ScopeVocabulary = catalogScopes): string {
  const kinds =
    scope.kinds === 'everything'
      ? ''
      : ` kinds=${scope.kinds
          .map((kind) => vocabulary.codeOf.get(kind) ?? kind)
          .sort()
          .join('.')}`;
  return `${kinds}${scope.prefix === undefined ? '' : ` prefix=${scope.prefix}`}`;
}

/**
 * A marker's scope from its name's parts (`ownership-marker-name.ts`): the kinds its codes name (none:
 * every kind), and its prefix. A code the vocabulary does not know (a newer telform's kind) is kept as
 * it is: it overlaps only the same code.
 */
export function scopeFromCodes(
  codes: readonly string[] | undefined,
  prefix: string | undefined,
  vocabulary: ScopeVocabulary = catalogScopes,
): Scope {
  const kinds =
    codes === undefined ? 'everything' : [...new Set(codes.map((code) => vocabulary.kindOf.get(code) ?? code))].sort();
  return { kinds, ...(prefix === undefined ? {} : { prefix }) };
}

/** Whether two scopes are the same. */
export function sameScope(a: Scope, b: Scope): boolean {
  return scopeSuffix(a) === scopeSuffix(b);
}
