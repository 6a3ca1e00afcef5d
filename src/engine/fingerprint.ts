import { createHash } from 'node:crypto';
import type { LiveObject } from '../resources/live-side.js';

/**
 * A live object's fingerprint for saved plans (docs/commands.md, plan): a hash of its normalised spec,
 * which leaves registry statuses out, so a brand moving from PROCESSING to COMPLETED does not make
 * a reviewed plan stale.
 */
export function fingerprintLive(live: LiveObject): string {
  return createHash('sha256').update(stableJson(live.spec)).digest('hex').slice(0, 32);
}

/** JSON with object keys sorted, so equal data always gives the same text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
