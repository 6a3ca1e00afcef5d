/**
 * The emulator's request log, read by tests through `GET /__emulator/requests`: every request
 * with its outcome, every injected fault and every status callback attempted.
 */
export interface RequestLogEntry {
  seq: number;
  at: string;
  type: 'request' | 'callback';
  account: string | null;
  method: string;
  /** Path as requested (without the query string), or the callback URL. */
  path: string;
  query: string;
  status: number | null;
  duration_ms: number;
  /** The fault injected into this request, if any (e.g. `reset`, `error500`, `lost_response`, `rate_limited`). */
  fault?: string;
  /** For callbacks: whether it was delivered, and why not. */
  delivered?: boolean;
  note?: string;
}

export interface RequestLogFilter {
  account?: string;
  type?: RequestLogEntry['type'];
  sinceSeq?: number;
}

/** Bounded so that a long-running emulator does not grow without end; the oldest entries go first (at most 10% over). */
const maxEntries = 200_000;

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private nextSeq = 1;

  record(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full = { seq: this.nextSeq++, ...entry };
    this.entries.push(full);
    // Trimmed in batches of a tenth: removing one entry per request from the front of a full log
    // would move the whole array on every request.
    if (this.entries.length > maxEntries + maxEntries / 10) this.entries.splice(0, this.entries.length - maxEntries);
    return full;
  }

  list(filter: RequestLogFilter = {}): RequestLogEntry[] {
    return this.entries.filter(
      (entry) =>
        (filter.account === undefined || entry.account === filter.account) &&
        (filter.type === undefined || entry.type === filter.type) &&
        (filter.sinceSeq === undefined || entry.seq > filter.sinceSeq),
    );
  }

  clear(): void {
    this.entries = [];
  }
}
