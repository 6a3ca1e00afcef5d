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
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + stableJson(value[i]);
    return `${text}]`;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    let text = '{';
    let first = true;
    for (const key of Object.keys(record).sort()) {
      text += `${first ? '' : ','}${JSON.stringify(key)}:${stableJson(record[key])}`;
      first = false;
    }
    return `${text}}`;
  }
  return JSON.stringify(value ?? null);
}
