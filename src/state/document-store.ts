// A JSON document other than a ledger kept in a state backend (a rollout's progress): the same
// guarantees as the ledger's (a lock for the run, compare-and-swap writes, durable before a write
// returns) on the same backends, so what one CI runner records another one reads. The document is
// opaque here but for its `serial`, which the backends compare on every write.
import type { Clock } from '../util/clock.js';
import type { StateBackend } from './backend.js';

export class DocumentStore {
  #serial: number | undefined;
  #writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly backend: StateBackend,
    /** The document as read when opened (JSON text), or undefined when there was none. */
    readonly initial: string | undefined,
  ) {}

  /**
   * Locks the backend for this run (refusing at once, or after `lockWaitMs`, when another run holds
   * it) and reads the document.
   */
  static async open(
    backend: StateBackend,
    options: { lockWaitMs: number; clock?: Clock; notify?: (line: string) => void },
  ): Promise<DocumentStore> {
    await backend.lock(options.lockWaitMs, options.clock, options.notify);
    try {
      const stored = await backend.read();
      const store = new DocumentStore(backend, stored.ledger);
      store.#serial = stored.ledger === undefined ? undefined : serialOf(stored.ledger);
      return store;
    } catch (error) {
      await backend.close();
      throw error;
    }
  }

  get location(): string {
    return this.backend.location;
  }

  /**
   * Writes the document (with the next serial) and resolves once it is durable. Writes are made one
   * after another in the order asked, so callers running at once never race each other's serial.
   */
  write(document: Record<string, unknown>): Promise<void> {
    const next = this.#writing.then(async () => {
      const serial = (this.#serial ?? 0) + 1;
      await this.backend.commit({
        ledger: `${JSON.stringify({ ...document, serial }, null, 2)}\n`,
        serial,
        expectedSerial: this.#serial,
        journal: [],
      });
      this.#serial = serial;
    });
    // A failed write fails its caller; the next write still runs (and meets the same conflict if any).
    this.#writing = next.catch(() => undefined);
    return next;
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}

function serialOf(text: string): number | undefined {
  try {
    const serial = (JSON.parse(text) as { serial?: unknown }).serial;
    return typeof serial === 'number' ? serial : undefined;
  } catch {
    return undefined;
  }
}
