// Types for the two undici modules the API client imports on their own (undici ships declarations only
// for its package entry, which loads fetch, WebSocket, cookies and the rest with them).

declare module 'undici/lib/dispatcher/pool.js' {
  import { Pool } from 'undici';
  export = Pool;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** `Dispatcher#request`, which the package entry installs on every dispatcher; called with one as `this`. */
  function request<TOpaque = null>(this: Dispatcher, options: Dispatcher.RequestOptions<TOpaque>): Promise<Dispatcher.ResponseData<TOpaque>>;
  export = request;
}
