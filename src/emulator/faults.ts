import { randomInt } from 'node:crypto';
import { invalidOption } from './start-error.js';

/**
 * Fault injection: at configured probabilities, a request of a chosen
 * method is reset before it is handled, answered 500 without being handled, or handled (a write is
 * committed and persisted) and then its response dropped. Draws come from a seeded generator, so a
 * run with the same seed and the same request order injects the same faults.
 */

export const faultMethods = ['GET', 'POST', 'DELETE'] as const;
export type FaultMethod = (typeof faultMethods)[number];

/** The value recorded in the request log's `fault` field. */
export type FaultKind = 'reset' | 'error500' | 'lost_response';

export interface FaultOptions {
  /** Probability (0–1) of answering 500 before handling the request. */
  error500?: number;
  /** Probability of resetting the connection before handling the request. */
  reset?: number;
  /** Probability of handling the request (and persisting a write), then dropping the connection unanswered. */
  lost?: number;
  /** Methods that faults apply to; default all. */
  methods?: readonly string[];
  /** Seed of the generator (an unsigned 32-bit integer); default a random one, reported by the admin route. */
  seed?: number;
}

export interface FaultSettings {
  error500: number;
  reset: number;
  lost: number;
  methods: FaultMethod[];
  seed: number;
}

const keyNames = 'expected 500, reset, lost, methods or seed';

/**
 * Parses `--faults`: comma-separated `key=value` items, e.g. `500=0.1,reset=5%,lost=0.2,methods=POST+DELETE,seed=42`.
 * Probabilities are decimals from 0 to 1 or percentages. `none` (or `off`, or an empty string) means no faults.
 */
export function parseFaultSpec(spec: string): FaultOptions | null {
  const trimmed = spec.trim();
  if (trimmed === '' || trimmed === 'none' || trimmed === 'off') return null;
  const options: FaultOptions = {};
  const seen = new Set<string>();
  for (const rawItem of trimmed.split(',')) {
    const item = rawItem.trim();
    const equals = item.indexOf('=');
    if (equals <= 0) throw invalidOption(`"${item}" is not of the form key=value (${keyNames})`);
    const key = item.slice(0, equals).trim().toLowerCase();
    const value = item.slice(equals + 1).trim();
    const canonical = key === 'error500' ? '500' : key;
    if (seen.has(canonical)) throw invalidOption(`"${key}" is given twice`);
    seen.add(canonical);
    switch (canonical) {
      case '500':
        options.error500 = parseProbability(key, value);
        break;
      case 'reset':
        options.reset = parseProbability(key, value);
        break;
      case 'lost':
        options.lost = parseProbability(key, value);
        break;
      case 'methods':
        options.methods = value.split('+').map((method) => method.trim());
        break;
      case 'seed':
        if (!/^\d+$/.test(value)) throw invalidOption(`seed must be an integer from 0 to 4294967295, not "${value}"`);
        options.seed = Number(value);
        break;
      default:
        throw invalidOption(`unknown fault "${key}" (${keyNames})`);
    }
  }
  return options;
}

function parseProbability(key: string, value: string): number {
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(value);
  const parsed = percent ? Number(percent[1]) / 100 : /^\d*\.?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(parsed) || parsed < 0 || parsed > 1) {
    throw invalidOption(`${key} must be a probability from 0 to 1 or a percentage such as 5%, not "${value}"`);
  }
  return parsed;
}

/** Validates fault options (from a spec or an object) and fills in the defaults; null means no faults. */
export function resolveFaults(input: string | FaultOptions | null | undefined): FaultSettings | null {
  const options = typeof input === 'string' ? parseFaultSpec(input) : input;
  if (!options) return null;
  const probability = (name: string, value: number | undefined): number => {
    if (value === undefined) return 0;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
      throw invalidOption(`${name} must be a probability from 0 to 1`);
    }
    return value;
  };
  const error500 = probability('500', options.error500);
  const reset = probability('reset', options.reset);
  const lost = probability('lost', options.lost);
  const sum = error500 + reset + lost;
  if (sum > 1 + 1e-9)
    throw invalidOption(`the fault probabilities add up to ${round(sum)}; their sum must be at most 1`);
  const methods = resolveMethods(options.methods);
  const seed = options.seed ?? randomInt(0, 2 ** 32 - 1);
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) {
    throw invalidOption(`seed must be an integer from 0 to 4294967295, not ${String(seed)}`);
  }
  return { error500, reset, lost, methods, seed };
}

function resolveMethods(methods: readonly string[] | undefined): FaultMethod[] {
  if (methods === undefined) return [...faultMethods];
  const resolved: FaultMethod[] = [];
  for (const raw of methods) {
    const method = String(raw).toUpperCase();
    if (!(faultMethods as readonly string[]).includes(method)) {
      throw invalidOption(
        `methods must be GET, POST or DELETE joined with "+" (e.g. methods=POST+DELETE), not "${String(raw)}"`,
      );
    }
    if (!resolved.includes(method as FaultMethod)) resolved.push(method as FaultMethod);
  }
  if (resolved.length === 0) throw invalidOption('methods must name at least one of GET, POST or DELETE');
  return resolved;
}

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** The settings written back as a `--faults` spec, for the admin route and log lines. */
export function formatFaultSpec(settings: FaultSettings | null): string {
  if (!settings) return 'none';
  return [
    `500=${round(settings.error500)}`,
    `reset=${round(settings.reset)}`,
    `lost=${round(settings.lost)}`,
    `methods=${settings.methods.join('+')}`,
    `seed=${settings.seed}`,
  ].join(',');
}

/**
 * A small, fast, well-distributed 32-bit generator (the "mulberry32" construction); returns floats in
 * [0, 1). Cryptographic quality is not needed, reproducibility is.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Decides the fault of each request; reconfigurable at run time through the admin faults route. */
export class FaultInjector {
  private current: FaultSettings | null = null;
  private next: () => number = () => 1;

  constructor(settings: FaultSettings | null) {
    this.configure(settings);
  }

  get settings(): FaultSettings | null {
    return this.current;
  }

  /** Replaces the settings and restarts the generator from their seed. */
  configure(settings: FaultSettings | null): void {
    this.current = settings;
    this.next = settings ? seededRandom(settings.seed) : () => 1;
  }

  /**
   * The fault for one request, or null. One draw per request whose method is selected, compared with
   * the cumulative probabilities, so each fault happens at exactly its configured rate.
   */
  draw(method: string): FaultKind | null {
    const settings = this.current;
    if (!settings || !(settings.methods as readonly string[]).includes(method)) return null;
    const value = this.next();
    if (value < settings.reset) return 'reset';
    if (value < settings.reset + settings.error500) return 'error500';
    if (value < settings.reset + settings.error500 + settings.lost) return 'lost_response';
    return null;
  }
}
