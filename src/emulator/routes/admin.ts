import { ApiError, json, type JsonObject, type Reply } from '../http.js';
import type { RequestLogEntry } from '../request-log.js';
import type { AdminRoute } from '../router.js';
import { adminSeedRoutes, requireAccount } from './admin-seed.js';
import { adminRegistryRoutes } from './admin-registry.js';
import { syncAllRegistries } from '../registry-sync.js';

/**
 * Admin routes under `/__emulator/`: not part of the API, for tests and demos (seed data, read the
 * request log, move the clock). They need no auth: the emulator serves loopback only.
 */
/** The last moment the emulator's clock may show: 9999-12-31T23:59:59.999Z. */
const latestClockMs = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export const adminRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/__emulator/health/',
    // The shapes and products too: a test or a user can tell which world the emulator serves.
    handle: ({ runtime }) =>
      json(200, {
        status: 'ok',
        now: runtime.nowIso(),
        accounts: [...runtime.state.accounts.keys()],
        shapes: runtime.config.shapes,
        products: [...runtime.config.products],
      }),
  },
  {
    method: 'GET',
    path: '/__emulator/requests/',
    handle: ({ runtime, query }) => {
      const type = query.get('type');
      const since = query.get('since_seq');
      const requests: RequestLogEntry[] = runtime.log.list({
        ...(query.get('account') ? { account: query.get('account') as string } : {}),
        ...(type === 'request' || type === 'callback' ? { type } : {}),
        ...(since ? { sinceSeq: Number(since) } : {}),
      });
      return json(200, { requests });
    },
  },
  {
    method: 'DELETE',
    path: '/__emulator/requests/',
    handle: ({ runtime }) => {
      runtime.log.clear();
      return json(200, { message: 'request log cleared' });
    },
  },
  {
    method: 'POST',
    path: '/__emulator/clock/',
    handle: ({ runtime, body }) => {
      const advance = body.advance_ms;
      // The clock must stay a valid date with a four-digit year: past that, every timestamp the
      // emulator writes would fail (or change shape), so such a move is refused, never applied.
      if (
        typeof advance !== 'number' ||
        !Number.isFinite(advance) ||
        advance < 0 ||
        runtime.now().getTime() + advance > latestClockMs
      ) {
        throw new ApiError(
          400,
          'advance_ms must be a non-negative number of milliseconds that keeps the clock before the year 10000',
        );
      }
      runtime.advanceClock(advance);
      // Registrations that came due fire their status callbacks now (registry-sync.ts).
      syncAllRegistries(runtime);
      return json(200, { now: runtime.nowIso() });
    },
  },
  {
    method: 'POST',
    path: '/__emulator/accounts/',
    handle: ({ runtime, body }) => {
      const { auth_id: authId, auth_token: authToken } = body;
      if (typeof authId !== 'string' || !/^[A-Za-z0-9]{1,64}$/.test(authId)) {
        throw new ApiError(400, 'auth_id must be 1 to 64 letters or digits');
      }
      if (typeof authToken !== 'string' || authToken.length < 1) throw new ApiError(400, 'auth_token is required');
      const existing = runtime.state.accounts.get(authId);
      if (existing && existing.authToken !== authToken)
        throw new ApiError(409, `account ${authId} exists with another token`);
      runtime.ensureAccount(authId, authToken);
      return json(existing ? 200 : 201, { auth_id: authId });
    },
  },
  {
    method: 'GET',
    path: '/__emulator/accounts/:auth_id/billing/',
    handle: ({ runtime, params }) => {
      const account = requireAccount(runtime, params.auth_id as string);
      const total = account.billing.reduce((sum, item) => sum + item.amount_usd, 0);
      return json(200, { total_usd: total, items: account.billing });
    },
  },
  ...adminSeedRoutes,
  ...adminRegistryRoutes,
];
