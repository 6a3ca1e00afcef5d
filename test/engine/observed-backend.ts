import type { StateBackend } from '../../src/state/backend.js';

/** `inner` with its appends going through `append` (which calls `inner.append` when it sees fit). */
export function withAppend(inner: StateBackend, append: (records: readonly string[]) => Promise<void>): StateBackend {
  return {
    location: inner.location,
    lock: (waitMs, clock) => inner.lock(waitMs, clock),
    read: () => inner.read(),
    append,
    commit: (change) => inner.commit(change),
    backup: (ledger) => inner.backup(ledger),
    readHistory: () => inner.readHistory(),
    appendHistory: (record, keep) => inner.appendHistory(record, keep),
    close: () => inner.close(),
  };
}
