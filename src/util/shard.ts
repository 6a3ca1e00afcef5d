import { createHash } from 'node:crypto';

/**
 * Deterministic partition of accounts over N shards (`--shard K/N`), by rendezvous hashing of the
 * account name: each account goes to the shard whose hash of (name, shard) is highest. It depends
 * on nothing but the name and N, so every account is in exactly one shard, adding or removing an
 * account moves no other, and changing N moves only about 1/N of them.
 */

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** `K/N` with 1 ≤ K ≤ N, or undefined. */
export function parseShard(text: string): Shard | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!match) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index >= 1 && count >= 1 && index <= count && count <= 10_000 ? { index, count } : undefined;
}

export function shardOf(name: string, count: number): number {
  let best = 1;
  let bestWeight = -1n;
  for (let index = 1; index <= count; index += 1) {
    const weight = createHash('sha256').update(`${index}\u0000${name}`).digest().readBigUInt64BE(0);
    if (weight > bestWeight) {
      best = index;
      bestWeight = weight;
    }
  }
  return best;
}

export function inShard(name: string, shard: Shard | undefined): boolean {
  return !shard || shardOf(name, shard.count) === shard.index;
}
