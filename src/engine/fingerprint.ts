import { createHash } from 'node:crypto';
import type { LiveObject } from '../resources/live-side.js';
import { stableJson } from '../util/stable-json.js';

/**
 * A live object's fingerprint for saved plans (docs/commands.md, plan): a hash of its normalised spec,
 * which leaves registry statuses out, so a brand moving from PROCESSING to COMPLETED does not make
 * a reviewed plan stale.
 */
export function fingerprintLive(live: LiveObject): string {
  return createHash('sha256').update(stableJson(live.spec)).digest('hex').slice(0, 32);
}
