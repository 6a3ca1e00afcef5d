// Long synchronous work in small slices: the reads a plan or drift starts while its manifests load
// (run/early-reads.ts) progress only when the main thread lets the event loop run. The manifest
// loader and the plan's forms made while lists land (engine/spec-forms.ts) work through it.

/** How long a slice of work may hold the thread before the event loop runs again. */
const sliceMs = 2;

/**
 * Yields to the event loop when the current slice of work has run its time. Callers ask `due()`
 * (a clock read) before `breathe()`, so the thousands of checks between yields cost no promise.
 */
export class Pacer {
  #since = performance.now();
  #asked = 0;

  /** Whether the slice has run its time; the clock is read at every eighth question only (a read costs more than a small step). */
  due(): boolean {
    if ((++this.#asked & 7) !== 0) return false;
    return performance.now() - this.#since >= sliceMs;
  }

  async breathe(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}
