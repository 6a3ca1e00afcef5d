// Lower bounds on a run's wall time, computed from its counts: what no client could beat at this
// latency, parallelism and rate limit, however little CPU it spent.

/** Pages a whole read of the account needs: every kind's list, 20 to a page, one page at least. */
export function pagesToRead(countsByKind) {
  return Object.values(countsByKind).reduce((sum, count) => sum + Math.max(1, Math.ceil(count / 20)), 0);
}

/**
 * Reading every list: each kind's first page (which tells the total), then the other pages, at
 * most `parallelism` requests in flight.
 */
export function readFloorMs({ kinds, pages, parallelism, latencyMs }) {
  return latencyMs * (Math.ceil(kinds / parallelism) + Math.ceil(Math.max(0, pages - kinds) / parallelism));
}

/**
 * Writing: `writes` requests in dependency waves `depth` deep, `parallelism` at a time, and under a
 * client rate limit of `limit.requests` per `limit.periodMs` (a sliding window) for all `requests`
 * of the run: the last request cannot start before floor((requests - 1) / limit) whole windows.
 */
export function writeFloorMs({ writes, depth, parallelism, latencyMs }) {
  if (writes === 0) return 0;
  return latencyMs * Math.max(depth, Math.ceil(writes / parallelism));
}

export function rateFloorMs({ requests, limit, latencyMs }) {
  if (!limit || requests === 0) return 0;
  return Math.floor((requests - 1) / limit.requests) * limit.periodMs + latencyMs;
}
