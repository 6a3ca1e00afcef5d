import { ApiError, json, type JsonObject } from '../http.js';
import type { AdminRoute } from '../router.js';
import type { Runtime } from '../runtime.js';
import type { AccountState, NumberRecord } from '../state.js';
import { buildApplication, presentApplication } from './applications.js';
import { checkAttachTarget, normalizeNumber } from './numbers.js';

/**
 * Admin routes that seed what the API itself cannot create: applications with a chosen `app_id`
 * and phone numbers (attached to an application or an inbound trunk, linked to a 10DLC campaign
 * with a link status the campaign delete rule reads). Spread into `adminRoutes`.
 */

const linkStatuses = ['PROCESSING', 'COMPLETED', 'FAILED', 'REGISTERED'] as const;

/** The account named in an admin path, or 404. */
export function requireAccount(runtime: Runtime, authId: string): AccountState {
  const account = runtime.state.accounts.get(authId);
  if (!account) throw new ApiError(404, `no account ${authId}`);
  return account;
}

function optionalText(body: JsonObject, field: string): string | null {
  const value = body[field];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') throw new ApiError(400, `${field} must be a string`);
  return value;
}

/** Reads a whole number record from an admin body; every field but `number` is optional. */
function readNumber(account: AccountState, body: JsonObject, createdAt: string): NumberRecord {
  const raw = optionalText(body, 'number');
  const number = raw === null ? undefined : normalizeNumber(raw);
  if (number === undefined) throw new ApiError(400, 'number must be 8 to 15 digits (E.164, with or without +)');
  const appId = optionalText(body, 'app_id');
  if (appId !== null) checkAttachTarget(account, appId);
  const campaignId = optionalText(body, 'campaign_id');
  const status = optionalText(body, 'campaign_link_status');
  if (status !== null && !(linkStatuses as readonly string[]).includes(status)) {
    throw new ApiError(400, `campaign_link_status must be one of ${linkStatuses.join(', ')}`);
  }
  if (status !== null && campaignId === null) throw new ApiError(400, 'campaign_link_status needs campaign_id');
  const row = body.row;
  if (row !== undefined && row !== null && (typeof row !== 'object' || Array.isArray(row))) {
    throw new ApiError(400, 'row must be an object of the columns the number shows');
  }
  return {
    number,
    app_id: appId,
    campaign_id: campaignId,
    // A number linked without a stated status is taken as linked (COMPLETED).
    campaign_link_status:
      campaignId === null ? null : ((status ?? 'COMPLETED') as NumberRecord['campaign_link_status']),
    link: null,
    ...(row ? { row: { ...(row as JsonObject) } } : {}),
    created_at: createdAt,
  };
}

export const adminSeedRoutes: AdminRoute[] = [
  {
    method: 'POST',
    path: '/__emulator/accounts/:auth_id/applications/',
    handle: ({ runtime, params, body }) => {
      const account = requireAccount(runtime, params.auth_id as string);
      const appId = optionalText(body, 'app_id');
      if (appId !== null && !/^[0-9]{1,25}$/.test(appId)) throw new ApiError(400, 'app_id must be 1 to 25 digits');
      if (appId !== null && account.applications.has(appId))
        throw new ApiError(409, `application ${appId} already exists`);
      const record = buildApplication(account, body, runtime, appId ?? undefined);
      account.applications.set(record.app_id, record);
      return json(201, { application: presentApplication(record, `/v1/Account/${account.authId}`) });
    },
  },
  {
    method: 'GET',
    path: '/__emulator/accounts/:auth_id/numbers/',
    handle: ({ runtime, params }) => {
      const account = requireAccount(runtime, params.auth_id as string);
      return json(200, { numbers: [...account.numbers.values()] });
    },
  },
  {
    method: 'POST',
    path: '/__emulator/accounts/:auth_id/numbers/',
    handle: ({ runtime, params, body }) => {
      const account = requireAccount(runtime, params.auth_id as string);
      const draft = readNumber(account, body, runtime.nowIso());
      const existing = account.numbers.get(draft.number);
      // Seeding a number again replaces everything but its creation time.
      const record = existing ? Object.assign(existing, { ...draft, created_at: existing.created_at }) : draft;
      account.numbers.set(record.number, record);
      return json(existing ? 200 : 201, { number: record });
    },
  },
  {
    method: 'DELETE',
    path: '/__emulator/accounts/:auth_id/numbers/:number/',
    handle: ({ runtime, params }) => {
      const account = requireAccount(runtime, params.auth_id as string);
      const number = normalizeNumber(params.number as string) ?? (params.number as string);
      if (!account.numbers.delete(number)) throw new ApiError(404, `number ${number} not found`);
      return json(200, { message: `number ${number} removed` });
    },
  },
];
