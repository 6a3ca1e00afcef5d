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

/** The most shards a run is split into: finding an account's shard hashes it once per shard. */
export const maxShards = 10_000;

/** What `--shard` expects, said when a value is refused (the bound included: 1/99999999999 fails on it). */
export const shardExpectation = `expected K/N with 1 ≤ K ≤ N ≤ ${maxShards}, e.g. 2/4`;

/** `K/N` with 1 ≤ K ≤ N ≤ maxShards, or undefined. */
export function parseShard(text: string): Shard | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!match) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index >= 1 && count >= 1 && index <= count && count <= maxShards ? { index, count } : undefined;
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
