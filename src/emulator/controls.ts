import {
  FaultInjector,
  formatFaultSpec,
  resolveFaults,
  seededRandom,
  type FaultOptions,
  type FaultSettings,
} from './faults.js';
import { ApiError, json, type JsonObject } from './http.js';
import { drawLatency, formatLatency, resolveLatency, type LatencyOption, type LatencySettings } from './latency.js';
import type { EmulatorConfig } from './options.js';
import {
  RateLimiter,
  formatRateLimit,
  resolveRateLimit,
  type RateLimitOption,
  type RateLimitSettings,
} from './rate-limit.js';
import type { AdminRoute } from './router.js';
import { EmulatorStartError } from './start-error.js';

/**
 * The test conditions of a running emulator — faults, latency, rate limit — set from its options and
 * changeable at run time through `/__emulator/faults/`, so a test can seed data without faults and then
 * switch them on.
 */
export class Controls {
  readonly faults: FaultInjector;
  readonly rateLimiter: RateLimiter;
  private latencySettings: LatencySettings | null;
  // Latency draws have their own generator so that they never shift the fault sequence of a seed.
  private readonly latencyRandom: () => number;

  constructor(config: Pick<EmulatorConfig, 'faults' | 'latency' | 'rateLimit'>) {
    this.faults = new FaultInjector(config.faults);
    this.rateLimiter = new RateLimiter(config.rateLimit);
    this.latencySettings = config.latency;
    this.latencyRandom = seededRandom(((config.faults?.seed ?? Date.now()) ^ 0x9e3779b9) >>> 0);
  }

  get latency(): LatencySettings | null {
    return this.latencySettings;
  }

  setLatency(settings: LatencySettings | null): void {
    this.latencySettings = settings;
  }

  /** The delay for the next account request, in ms (0 when no latency is set). */
  nextLatencyMs(): number {
    return this.latencySettings ? drawLatency(this.latencySettings, this.latencyRandom) : 0;
  }

  describe(): JsonObject {
    const faults = this.faults.settings;
    const latency = this.latencySettings;
    const rateLimit = this.rateLimiter.settings;
    return {
      faults: faults ? describeFaults(faults) : null,
      latency: latency ? { spec: formatLatency(latency), min_ms: latency.minMs, max_ms: latency.maxMs } : null,
      rate_limit: rateLimit ? describeRateLimit(rateLimit) : null,
    };
  }

  /**
   * Applies an admin request body: `faults`, `latency` and `rate_limit`, each optional (absent: left as
   * is; null or "none": off), in the syntax of the command-line flags or as objects. Every value is
   * checked before any is applied, so a bad request changes nothing.
   */
  update(body: JsonObject): void {
    for (const key of Object.keys(body)) {
      if (!['faults', 'latency', 'rate_limit'].includes(key)) {
        throw new ApiError(400, `unknown setting "${key}" (expected faults, latency or rate_limit)`);
      }
    }
    const faults = 'faults' in body ? asBadRequest('faults', () => resolveFaults(readFaults(body.faults))) : undefined;
    const latency =
      'latency' in body ? asBadRequest('latency', () => resolveLatency(readLatency(body.latency))) : undefined;
    const rateLimit =
      'rate_limit' in body
        ? asBadRequest('rate_limit', () => resolveRateLimit(readRateLimit(body.rate_limit)))
        : undefined;
    if (faults !== undefined) this.faults.configure(faults);
    if (latency !== undefined) this.latencySettings = latency;
    if (rateLimit !== undefined) this.rateLimiter.configure(rateLimit);
  }

  clear(): void {
    this.faults.configure(null);
    this.latencySettings = null;
    this.rateLimiter.configure(null);
  }
}

function describeFaults(settings: FaultSettings): JsonObject {
  return {
    spec: formatFaultSpec(settings),
    error500: settings.error500,
    reset: settings.reset,
    lost: settings.lost,
    methods: settings.methods,
    seed: settings.seed,
  };
}

function describeRateLimit(settings: RateLimitSettings): JsonObject {
  return { spec: formatRateLimit(settings), limit: settings.limit, period_ms: settings.periodMs };
}

function asBadRequest<T>(field: string, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    if (error instanceof EmulatorStartError || error instanceof ApiError)
      throw new ApiError(400, `${field}: ${error.message}`);
    throw error;
  }
}

function readFaults(value: unknown): string | FaultOptions | null {
  if (value === null || typeof value === 'string') return value;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ApiError(400, 'must be a spec string, an object or null');
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!['error500', 'reset', 'lost', 'methods', 'seed'].includes(key)) {
      throw new ApiError(400, `unknown key "${key}" (expected error500, reset, lost, methods or seed)`);
    }
  }
  const methods = input.methods;
  const probability = (key: string): number | undefined => {
    const raw = input[key];
    if (raw === undefined) return undefined;
    if (typeof raw !== 'number') throw new ApiError(400, `${key} must be a number from 0 to 1`);
    return raw;
  };
  if (input.seed !== undefined && typeof input.seed !== 'number') throw new ApiError(400, 'seed must be an integer');
  if (
    methods !== undefined &&
    typeof methods !== 'string' &&
    !(Array.isArray(methods) && methods.every((item) => typeof item === 'string'))
  ) {
    throw new ApiError(400, 'methods must be an array of GET, POST or DELETE');
  }
  const options: FaultOptions = {};
  const error500 = probability('error500');
  const reset = probability('reset');
  const lost = probability('lost');
  if (error500 !== undefined) options.error500 = error500;
  if (reset !== undefined) options.reset = reset;
  if (lost !== undefined) options.lost = lost;
  if (methods !== undefined) options.methods = typeof methods === 'string' ? methods.split('+') : (methods as string[]);
  if (input.seed !== undefined) options.seed = input.seed as number;
  return options;
}

function readLatency(value: unknown): LatencyOption {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  throw new ApiError(400, 'must be milliseconds, a "MIN-MAX" string or null');
}

function readRateLimit(value: unknown): RateLimitOption {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const { limit, period_ms: periodMs } = value as Record<string, unknown>;
    if (typeof limit === 'number' && typeof periodMs === 'number') return { limit, periodMs };
  }
  throw new ApiError(400, 'must be "N/PERIOD" (e.g. "300/5s"), an object {limit, period_ms} or null');
}

/** `/__emulator/faults/`: read (GET), change (POST) or switch off (DELETE) the test conditions. */
export function controlRoutes(controls: Controls): AdminRoute[] {
  return [
    { method: 'GET', path: '/__emulator/faults/', handle: () => json(200, controls.describe()) },
    {
      method: 'POST',
      path: '/__emulator/faults/',
      handle: ({ body }) => {
        controls.update(body);
        return json(200, controls.describe());
      },
    },
    {
      method: 'DELETE',
      path: '/__emulator/faults/',
      handle: () => {
        controls.clear();
        return json(200, controls.describe());
      },
    },
  ];
}
