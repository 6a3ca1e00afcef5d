// Long synchronous work in small slices: the reads a plan or drift starts while its manifests load
// (run/early-reads.ts) progress only when the main thread lets the event loop run.

/** How long a slice of work may hold the thread before the event loop runs again. */
const sliceMs = 4;

/** Yields to the event loop when the current slice of work has run its time; costs a clock read otherwise. */
export class Pacer {
  #since = performance.now();

  async breathe(): Promise<void> {
    if (performance.now() - this.#since < sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}
