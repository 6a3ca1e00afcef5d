/** Time as the client sees it; passed in so tests can run retries and limits without waiting. */
export interface Clock {
  now(): number;
  /** Resolves after `milliseconds`, or early when `signal` aborts. */
  sleep(milliseconds: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (milliseconds, signal) =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, milliseconds));
      // An aborted wait must not keep the process alive either.
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    }),
};
