import { ApiError, json, type JsonObject } from '../http.js';
import { linkStatus } from '../number-links.js';
import { optionalString } from '../params.js';
import { findOr404, listReply } from '../records.js';
import type { Route } from '../router.js';
import type { AccountInitializer } from '../runtime.js';
import type { AccountState, NumberRecord } from '../state.js';
import { variationOf, type ShapeVariation } from '../variation.js';

/**
 * The account's phone numbers (`/Number/`), the part production serves that the reconciler reads:
 * list, get, and update `app_id`. Numbers are never bought or released: every account starts with
 * the fixed `seededNumbers`, and more come from the admin seed route or `--seed`. The API reference is silent;
 * this follows production's documentation: `app_id` may be an application or an inbound trunk id, and a
 * number shows what it is attached to in `application` as a resource path (`/Application/{app_id}/`
 * or `/Zentrunk/Trunk/{trunk_id}/`).
 */

const collectionPath = '/Number/';

/**
 * The numbers every new account starts with, unattached and linked to no campaign, so that numbers can
 * be attached to trunks and linked to campaigns without the admin route. Fictional (555-01xx is
 * reserved for fiction); the last one ends in 0000, so linking it to a campaign fails (registry.ts).
 */
export const seededNumbers: readonly string[] = [
  '15125550101',
  '15125550102',
  '15125550103',
  '15125550104',
  '15125550000',
];

export const seedNumbers: AccountInitializer = {
  name: 'numbers',
  initialize: (account, runtime) => {
    for (const number of seededNumbers) {
      // An account that gets them after the fact (loaded from an older data file) keeps a number it already has.
      if (account.numbers.has(number)) continue;
      account.numbers.set(number, {
        number,
        app_id: null,
        campaign_id: null,
        campaign_link_status: null,
        link: null,
        created_at: runtime.nowIso(),
      });
    }
  },
};
const itemPath = '/Number/:number/';

/** Numbers are E.164 digits without the `+` (production's documentation); a leading `+` is accepted and dropped. */
export function normalizeNumber(raw: string): string | undefined {
  const digits = raw.startsWith('+') ? raw.slice(1) : raw;
  return /^[1-9][0-9]{7,14}$/.test(digits) ? digits : undefined;
}

/**
 * Checks that `appId` can receive a number: an application, or an inbound trunk (the API reference, Trunks
 * rule 5: only inbound trunks can be attached to phone numbers). 400 otherwise.
 */
export function checkAttachTarget(account: AccountState, appId: string): void {
  if (account.applications.has(appId)) return;
  const trunk = account.trunks.get(appId);
  if (trunk?.trunk_direction === 'inbound') return;
  if (trunk)
    throw new ApiError(400, `trunk ${appId} is outbound; only inbound trunks can be attached to phone numbers`);
  throw new ApiError(400, `app_id ${appId} is not an application or an inbound trunk of this account`);
}

/**
 * `tendlc_registration_status` takes UNREGISTERED|PROCESSING|COMPLETED (production's documentation), and
 * REGISTERED for a number an account was seeded with in that status: a failed link is not registered (the
 * number keeps `tendlc_campaign_id`, so the failure stays visible).
 */
function registrationStatus(record: NumberRecord, now: Date): string {
  const status = linkStatus(record, now);
  return status === 'PROCESSING' || status === 'COMPLETED' || status === 'REGISTERED' ? status : 'UNREGISTERED';
}

/** Columns of a held row the emulator always computes itself: the number, what it is attached to, its path. */
const computedColumns = new Set(['number', 'application', 'resource_uri', 'api_id']);

export function presentNumber(record: NumberRecord, account: AccountState, accountBase: string, now: Date): JsonObject {
  let application: string | null = null;
  if (record.app_id !== null) {
    application = account.trunks.has(record.app_id)
      ? `${accountBase}/Zentrunk/Trunk/${record.app_id}/`
      : `${accountBase}/Application/${record.app_id}/`;
  }
  const row: JsonObject = {
    number: record.number,
    added_on: record.created_at.slice(0, 10),
    application,
    number_type: 'local',
    voice_enabled: true,
    sms_enabled: true,
    tendlc_campaign_id: record.campaign_id,
    tendlc_registration_status: registrationStatus(record, now),
    resource_uri: `${accountBase}${collectionPath}${record.number}/`,
  };
  // A held row's columns are shown as the account holds them (legacy values included).
  for (const [column, value] of Object.entries(record.row ?? {})) if (!computedColumns.has(column)) row[column] = value;
  return row;
}

/**
 * A number row as the account's variation shows it (SDK mocks): link statuses in lower case and the number with
 * a `+`, or `UNREGISTERED` beside the campaign id of a linked number.
 */
function variedRow(row: JsonObject, variation: ShapeVariation): JsonObject {
  if (variation.numberRows === 'unregistered')
    return row.tendlc_campaign_id === null || row.tendlc_campaign_id === undefined
      ? row
      : { ...row, tendlc_registration_status: 'UNREGISTERED' };
  if (variation.numberRows !== 'lower_plus') return row;
  const status = row.tendlc_registration_status;
  return {
    ...row,
    number: `+${String(row.number)}`,
    ...(typeof status === 'string' ? { tendlc_registration_status: status.toLowerCase() } : {}),
  };
}

function findNumber(account: AccountState, raw: string): NumberRecord {
  return findOr404(account.numbers, normalizeNumber(raw) ?? raw, 'number');
}

export const numberRoutes: Route[] = [
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase, runtime }) => {
      const variation = variationOf(runtime.config, account);
      const appId = query.get('app_id');
      const numbers = [...account.numbers.values()].filter((record) => !appId || record.app_id === appId);
      const now = runtime.now();
      return listReply(numbers, query, `${accountBase}${collectionPath}`, true, (record) =>
        variedRow(presentNumber(record, account, accountBase, now), variation),
      );
    },
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params, accountBase, runtime }) =>
      json(
        200,
        variedRow(
          presentNumber(findNumber(account, params.number as string), account, accountBase, runtime.now()),
          variationOf(runtime.config, account),
        ),
      ),
  },
  {
    method: 'POST',
    path: itemPath,
    writes: true,
    handle: ({ account, params, body }) => {
      const record = findNumber(account, params.number as string);
      const appId = optionalString(body, 'app_id');
      // `""` detaches the number; absent or null leaves it as it is.
      if (appId === '') {
        record.app_id = null;
      } else if (appId !== undefined) {
        checkAttachTarget(account, appId);
        record.app_id = appId;
      }
      return json(202, { message: 'changed' });
    },
  },
];
