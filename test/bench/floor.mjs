// Lower bounds on a run's wall time, computed from its counts: what no client could beat at this
// latency, parallelism and rate limit, however little CPU it spent. The bench adds start-up (the
// median wall time of `telform --version`) to the floor of every CLI run.

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

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

/**
 * Under the rate limit: request k cannot start before request k − limit started one period earlier,
 * so the requests past the last whole window start a period after the first ones at the earliest,
 * and then, `parallelism` in flight, take one latency per `parallelism` of them.
 */
export function rateFloorMs({ requests, limit, parallelism, latencyMs }) {
  if (!limit || requests === 0) return 0;
  const windows = Math.floor((requests - 1) / limit.requests);
  return windows * limit.periodMs + Math.ceil((requests - windows * limit.requests) / parallelism) * latencyMs;
}
