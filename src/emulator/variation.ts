// How one account's answers vary among the shapes production is known to use (docs/emulator.md, Production
// shapes): chosen per account from a seed, or fixed by the options, so a test can ask for the one it needs.
import type { AccountState } from './state.js';

export interface ShapeVariation {
  /** Items per page of the 10DLC and Profile lists: what the request asked for, or production's 10 or 2 whatever it asked. */
  pageSize: 'requested' | 10 | 2;
  /**
   * The paging fields of the 10DLC and Profile lists: `meta` `{limit, next, offset}`, the same with `total_count`,
   * `{count, limit, offset}` beside the items (no `meta`, `count` the total), or no paging fields at all.
   */
  listEnvelope: 'meta' | 'meta_total' | 'count' | 'none';
  /** Where a brand, campaign or profile create answer puts the new id: top level, nested under the kind, or camelCase. */
  createAnswer: 'flat' | 'nested' | 'camel';
  /** Brand, campaign and profile list rows carry no alias (reads of one object still do). */
  rowsWithoutAlias: boolean;
  /** Brand reads (list and get) leave `brand_type` out. */
  brandTypeUnread: boolean;
  /**
   * A list the account may not read (403, its permissions): none, or one of the lists a run may read only for
   * context (the numbers on a trunk or campaign, a brand's campaigns, a profile's brands, the trunks using an
   * ACL, the applications using SIP auth).
   */
  forbiddenList: ForbiddableList;
  /**
   * Phone number rows: as stored, with link statuses in lower case and numbers with a leading `+`, or with
   * `UNREGISTERED` beside the campaign id of every linked number (the campaign's number route still tells).
   */
  numberRows: 'stored' | 'lower_plus' | 'unregistered';
}

/** The lists `forbiddenList` may refuse, by the collection path below the account. */
const forbiddableLists = {
  numbers: '/Number/',
  campaigns: '/10dlc/Campaign/',
  brands: '/10dlc/Brand/',
  trunks: '/Zentrunk/Trunk/',
  applications: '/Application/',
} as const;

type ForbiddableList = 'none' | keyof typeof forbiddableLists;

export type VariationOptions = Partial<ShapeVariation> & {
  /** Seed of the choices (0 to 4294967295); each account draws its own from it and its Auth ID. */
  seed?: number;
};

/** What the production shapes answer when nothing varies them: the shapes of the SDKs' most common fixtures. */
const steadyVariation: ShapeVariation = {
  pageSize: 'requested',
  listEnvelope: 'meta',
  createAnswer: 'flat',
  rowsWithoutAlias: false,
  brandTypeUnread: false,
  forbiddenList: 'none',
  numberRows: 'stored',
};

/** Every choice of each dimension, in the order a seed draws from. */
const variationChoices: { readonly [K in keyof ShapeVariation]: readonly ShapeVariation[K][] } = {
  pageSize: ['requested', 10, 2],
  listEnvelope: ['meta', 'meta_total', 'count', 'none'],
  createAnswer: ['flat', 'nested', 'camel'],
  rowsWithoutAlias: [false, true],
  brandTypeUnread: [false, true],
  forbiddenList: ['none', 'numbers', 'campaigns', 'brands', 'trunks', 'applications'],
  numberRows: ['stored', 'lower_plus', 'unregistered'],
};

const chosen = new WeakMap<AccountState, ShapeVariation>();

/**
 * The account's shapes: none vary under the ideal shapes; under the production shapes, each dimension the
 * options fix is fixed, and the others are drawn from the seed and the Auth ID (steady without a seed).
 */
export function variationOf(
  config: { readonly shapes: string; readonly variation: VariationOptions | null },
  account: AccountState,
): ShapeVariation {
  if (config.shapes !== 'production') return steadyVariation;
  const known = chosen.get(account);
  if (known) return known;
  const options = config.variation ?? {};
  const random = options.seed === undefined ? undefined : generator(options.seed, account.authId);
  const pick = <K extends keyof ShapeVariation>(key: K): ShapeVariation[K] => {
    const fixed = options[key];
    if (fixed !== undefined) return fixed as ShapeVariation[K];
    const choices = variationChoices[key];
    return random ? (choices[Math.floor(random() * choices.length)] as ShapeVariation[K]) : steadyVariation[key];
  };
  const variation: ShapeVariation = {
    pageSize: pick('pageSize'),
    listEnvelope: pick('listEnvelope'),
    createAnswer: pick('createAnswer'),
    rowsWithoutAlias: pick('rowsWithoutAlias'),
    brandTypeUnread: pick('brandTypeUnread'),
    forbiddenList: pick('forbiddenList'),
    numberRows: pick('numberRows'),
  };
  chosen.set(account, variation);
  return variation;
}

/** A small seeded generator (mulberry32) over the seed mixed with the Auth ID: the same pair, the same draws. */
function generator(seed: number, authId: string): () => number {
  let state = seed >>> 0;
  for (const char of authId) state = Math.imul(state ^ char.charCodeAt(0), 0x9e3779b1) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Checks fixed choices and the seed; the message names what is wrong, for the start error. */
export function variationProblem(options: VariationOptions): string | undefined {
  if (
    options.seed !== undefined &&
    !(Number.isInteger(options.seed) && options.seed >= 0 && options.seed <= 0xffffffff)
  )
    return `the variation seed must be a whole number from 0 to 4294967295, not ${String(options.seed)}`;
  for (const key of Object.keys(variationChoices) as Array<keyof ShapeVariation>) {
    const value = options[key];
    if (value !== undefined && !(variationChoices[key] as readonly unknown[]).includes(value))
      return `the variation ${key} must be one of ${variationChoices[key].join(', ')}, not ${String(value)}`;
  }
  return undefined;
}

/** The 403 of the list the account's variation refuses (a GET of that collection, whatever its query). */
export function forbiddenListRefusal(variation: ShapeVariation, method: string, path: string): string | undefined {
  if (variation.forbiddenList === 'none' || method !== 'GET') return undefined;
  const forbidden = forbiddableLists[variation.forbiddenList];
  return path === forbidden || `${path}/` === forbidden ? `not permitted to list ${forbidden}` : undefined;
}
