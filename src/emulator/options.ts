import type { JsonObject } from './http.js';
import { resolveFaults, type FaultOptions, type FaultSettings } from './faults.js';
import { resolveLatency, type LatencyOption, type LatencySettings } from './latency.js';
import { resolveRateLimit, type RateLimitOption, type RateLimitSettings } from './rate-limit.js';
import { invalidOption } from './start-error.js';
import { variationProblem, type VariationOptions } from './variation.js';

/**
 * Options of `startEmulator` and of `telform emulator`. Every option has a default, so
 * `startEmulator()` alone gives a working emulator with the documented default account.
 */
export interface EmulatorAccount {
  authId: string;
  authToken: string;
}

export interface EmulatorOptions {
  /** Default `127.0.0.1`. */
  host?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Accounts served; default one account, `defaultAccount`. */
  accounts?: EmulatorAccount[];
  /** How long the registry simulator keeps brands and campaigns `PROCESSING`, in ms. */
  registryDelayMs?: number;
  /** Shape of the trunk GET body: production nests it under `object` (production's documentation). */
  trunkGetShape?: 'object' | 'flat';
  /** File the state is loaded from (if it exists) and saved to before each write is acknowledged; default none (memory only). */
  dataFile?: string;
  /** Delay of every account request: ms, `MIN-MAX` or `{ minMs, maxMs }`; default none. */
  latency?: LatencyOption;
  /** Per-account limit, `N/PERIOD` (e.g. `300/5s`) or `{ limit, periodMs }`; default none. */
  rateLimit?: RateLimitOption;
  /** Injected faults: a `--faults` spec (`500=0.1,reset=0.05,lost=0.2,methods=POST+DELETE,seed=42`) or an object; default none. */
  faults?: string | FaultOptions | null;
  /** YAML or JSON file of profiles, applications and numbers to start with (see seed.ts). */
  seedFile?: string;
  /** The same content as a seed file, already parsed; applied after `seedFile`. */
  seedData?: SeedInput;
  /**
   * `production`: what real accounts hold and how production reads them back (legacy objects in every new account,
   * campaign reads without the fields production does not return, 10DLC list `meta` without `total_count`);
   * `ideal`: every new account holds only the documented starting set and every read returns everything it stored.
   * Default: `defaultShapes`.
   */
  shapes?: Shapes;
  /** The products the accounts have; a request to a product left out answers 403. Default: all of them. */
  products?: readonly Product[];
  /**
   * How each account's answers vary among production's known shapes (variation.ts): a `seed` draws each
   * account's choices, a named choice fixes it. Default: none vary. Only under the production shapes.
   */
  variation?: VariationOptions;
}

export type Shapes = 'production' | 'ideal';
export const shapeNames: readonly Shapes[] = ['production', 'ideal'];

/** Products an account may lack; the core voice API (SipAuth, applications, numbers) is always there. */
export type Product = 'sip-trunking' | '10dlc';
export const productNames: readonly Product[] = ['sip-trunking', '10dlc'];

/** The options with every default filled in and every value checked. */
export interface EmulatorConfig {
  host: string;
  port: number;
  accounts: EmulatorAccount[];
  registryDelayMs: number;
  trunkGetShape: 'object' | 'flat';
  dataFile: string | null;
  latency: LatencySettings | null;
  rateLimit: RateLimitSettings | null;
  faults: FaultSettings | null;
  seedFile: string | null;
  seedData: SeedInput | null;
  shapes: Shapes;
  products: ReadonlySet<Product>;
  variation: VariationOptions | null;
}

/** The account served when none is configured; documented in docs/emulator.md. */
export const defaultAccount: EmulatorAccount = {
  authId: 'MAEMULATOR0000000001',
  authToken: 'emulator-auth-token-0000000000000000001',
};

/** The same rule as the admin accounts route: Auth IDs are path segments, so letters and digits only. */
export const authIdPattern = /^[A-Za-z0-9]{1,64}$/;

/** Fills in defaults and checks every value; a bad value is an `EmulatorStartError` naming the option. */
export function resolveOptions(options: EmulatorOptions = {}): EmulatorConfig {
  return {
    host: options.host ?? '127.0.0.1',
    port: resolvePort(options.port ?? 0),
    accounts: resolveAccounts(options.accounts),
    registryDelayMs: options.registryDelayMs ?? 5_000,
    trunkGetShape: options.trunkGetShape ?? 'object',
    dataFile: options.dataFile ?? null,
    latency: resolveLatency(options.latency),
    rateLimit: resolveRateLimit(options.rateLimit),
    faults: resolveFaults(options.faults),
    seedFile: options.seedFile ?? null,
    seedData: options.seedData ?? null,
    shapes: options.shapes === undefined ? shapesFromEnvironment() : resolveShapes(options.shapes),
    products: resolveProducts(options.products ?? productNames),
    variation: resolveVariation(options.variation),
  };
}

/** The shapes a start without `shapes` (and without `TELFORM_EMULATOR_SHAPES`) gets: what real accounts look like. */
export const defaultShapes: Shapes = 'production';

/**
 * The shapes of an emulator started without `shapes`: `TELFORM_EMULATOR_SHAPES` when set (the embedded
 * emulator of `--endpoint local` has no flags, so this is how it is asked for the ideal shapes), else the default.
 */
export function shapesFromEnvironment(env: NodeJS.ProcessEnv = process.env): Shapes {
  const named = env.TELFORM_EMULATOR_SHAPES;
  if (named === undefined || named === '') return defaultShapes;
  if (!(shapeNames as readonly string[]).includes(named)) {
    throw invalidOption(`TELFORM_EMULATOR_SHAPES must be ${shapeNames.join(' or ')}, not "${named}"`);
  }
  return named as Shapes;
}

export function resolveShapes(input: string): Shapes {
  if (!(shapeNames as readonly string[]).includes(input))
    throw invalidOption(`the shapes must be ${shapeNames.join(' or ')}, not "${input}"`);
  return input as Shapes;
}

/**
 * Products from a list or from the command line's comma-separated text (`sip-trunking,10dlc`; `none` for
 * an account with the core voice API only).
 */
export function resolveProducts(input: string | readonly string[]): ReadonlySet<Product> {
  const names =
    typeof input === 'string' ? (input.trim() === 'none' ? [] : input.split(',').map((name) => name.trim())) : input;
  const products = new Set<Product>();
  for (const name of names) {
    if (!(productNames as readonly string[]).includes(name)) {
      throw invalidOption(`unknown product "${name}" (the products are ${productNames.join(', ')}, or none)`);
    }
    products.add(name as Product);
  }
  return products;
}

function resolveVariation(variation: VariationOptions | undefined): VariationOptions | null {
  if (variation === undefined) return null;
  const problem = variationProblem(variation);
  if (problem !== undefined) throw invalidOption(problem);
  return { ...variation };
}

/** A TCP port: 0 (any free port) to 65535. Given as text by the command line, as a number by code. */
export function resolvePort(input: number | string): number {
  const text = String(input).trim();
  const port = /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65_535))
    throw invalidOption(`the port must be a whole number from 0 to 65535, not "${String(input)}"`);
  return port;
}

function resolveAccounts(accounts: EmulatorAccount[] | undefined): EmulatorAccount[] {
  if (!accounts || accounts.length === 0) return [defaultAccount];
  const byId = new Map<string, EmulatorAccount>();
  for (const account of accounts) {
    if (!authIdPattern.test(account.authId)) {
      throw invalidOption(`the Auth ID "${account.authId}" must be 1 to 64 letters or digits`);
    }
    if (account.authToken.length === 0)
      throw invalidOption(`the account ${account.authId} needs a non-empty Auth Token`);
    const existing = byId.get(account.authId);
    if (existing && existing.authToken !== account.authToken) {
      throw invalidOption(`the account ${account.authId} is given twice with different Auth Tokens`);
    }
    byId.set(account.authId, account);
  }
  return [...byId.values()];
}

/**
 * Seed data, as `--seed FILE` holds it or `seedData` gives it: profiles, applications and numbers an
 * account starts with (read, checked and replayed through the routes by seed.ts).
 */
export interface SeedAccountInput {
  profiles?: JsonObject[];
  applications?: JsonObject[];
  numbers?: Array<string | JsonObject>;
  /** Objects the account already holds, as the API reads them, kept as given (held.ts): legacy values and omitted fields. */
  existing?: HeldObjects;
}

/** Objects an account already holds, each as the API reads it back (kept as given by held.ts). */
export interface HeldObjects {
  profiles?: JsonObject[];
  brands?: JsonObject[];
  campaigns?: JsonObject[];
  trunk_credentials?: JsonObject[];
  sip_credentials?: JsonObject[];
  sip_ip_acls?: JsonObject[];
  trunk_ip_acls?: JsonObject[];
  origination_uris?: JsonObject[];
  trunks?: JsonObject[];
}

export interface SeedInput extends SeedAccountInput {
  accounts?: Array<SeedAccountInput & { auth_id: string; auth_token?: string }>;
}
