// Connection pools shared by many clients: one per endpoint, bounded. A client of its own keeps a
// pool per account, and a process watching a thousand accounts (serve) would then hold thousands of
// idle keep-alive sockets, each a file descriptor and a few hundred KB, and run out of open files
// under the common limit of 1,024. Shared, the sockets are as many as requests in flight at once.
import { HttpPool } from './http-pool.js';

export interface EndpointPoolsOptions {
  /** Sockets per endpoint at most; further requests wait for one in the pool's queue. */
  connections: number;
  /** How long an idle socket is kept for the next request, ms. */
  keepAliveMs?: number;
}

export class EndpointPools {
  readonly #pools = new Map<string, HttpPool>();

  constructor(private readonly options: EndpointPoolsOptions) {
    if (!Number.isInteger(options.connections) || options.connections < 1)
      throw new RangeError('a shared pool needs at least one connection');
  }

  /** The pool of an origin (`https://api.plivo.com`), made on first use. */
  for(origin: string): HttpPool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      pool = new HttpPool(origin, {
        connections: this.options.connections,
        keepAliveMs: this.options.keepAliveMs ?? 10_000,
      });
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  /** Sockets open now over every endpoint (for tests and serve's figures). */
  get openSockets(): number {
    let sockets = 0;
    for (const pool of this.#pools.values()) sockets += pool.openSockets;
    return sockets;
  }

  /** Closes every pool once its requests are done. */
  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }
}
