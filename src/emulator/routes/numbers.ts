import { ApiError, json, type JsonObject } from '../http.js';
import { optionalString } from '../params.js';
import { findOr404, listReply } from '../records.js';
import type { Route } from '../router.js';
import type { AccountState, NumberRecord } from '../state.js';

/**
 * The account's phone numbers (`/Number/`), the part production serves that the reconciler reads:
 * list, get, and update `app_id`. Numbers are created only by the admin seed route or `--seed`
 * (buying numbers is out of scope). api.md is silent; this follows api-facts.md section 5: `app_id`
 * may be an application or an inbound trunk id, and a number shows what it is attached to in
 * `application` as a resource path (`/Application/{app_id}/` or `/Zentrunk/Trunk/{trunk_id}/`).
 */

const collectionPath = '/Number/';
const itemPath = '/Number/:number/';

/** Numbers are E.164 digits without the `+` (api-facts.md 5); a leading `+` is accepted and dropped. */
export function normalizeNumber(raw: string): string | undefined {
  const digits = raw.startsWith('+') ? raw.slice(1) : raw;
  return /^[1-9][0-9]{7,14}$/.test(digits) ? digits : undefined;
}

/**
 * Checks that `appId` can receive a number: an application, or an inbound trunk (api.md, Trunks
 * rule 5: only inbound trunks can be attached to phone numbers). 400 otherwise.
 */
export function checkAttachTarget(account: AccountState, appId: string): void {
  if (account.applications.has(appId)) return;
  const trunk = account.trunks.get(appId);
  if (trunk?.trunk_direction === 'inbound') return;
  if (trunk) throw new ApiError(400, `trunk ${appId} is outbound; only inbound trunks can be attached to phone numbers`);
  throw new ApiError(400, `app_id ${appId} is not an application or an inbound trunk of this account`);
}

/** `tendlc_registration_status` takes UNREGISTERED|PROCESSING|COMPLETED (api-facts.md 7, quirk 8); a failed link is not registered. */
function registrationStatus(record: NumberRecord): string {
  if (record.campaign_link_status === 'PROCESSING' || record.campaign_link_status === 'COMPLETED') {
    return record.campaign_link_status;
  }
  return 'UNREGISTERED';
}

export function presentNumber(record: NumberRecord, account: AccountState, accountBase: string): JsonObject {
  let application: string | null = null;
  if (record.app_id !== null) {
    application = account.trunks.has(record.app_id)
      ? `${accountBase}/Zentrunk/Trunk/${record.app_id}/`
      : `${accountBase}/Application/${record.app_id}/`;
  }
  return {
    number: record.number,
    added_on: record.created_at.slice(0, 10),
    application,
    number_type: 'local',
    voice_enabled: true,
    sms_enabled: true,
    tendlc_campaign_id: record.campaign_id,
    tendlc_registration_status: registrationStatus(record),
    resource_uri: `${accountBase}${collectionPath}${record.number}/`,
  };
}

function findNumber(account: AccountState, raw: string): NumberRecord {
  return findOr404(account.numbers, normalizeNumber(raw) ?? raw, 'number');
}

export const numberRoutes: Route[] = [
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase }) => {
      const appId = query.get('app_id');
      const numbers = [...account.numbers.values()].filter((record) => !appId || record.app_id === appId);
      return listReply(numbers, query, `${accountBase}${collectionPath}`, true, (record) =>
        presentNumber(record, account, accountBase),
      );
    },
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params, accountBase }) =>
      json(200, presentNumber(findNumber(account, params.number as string), account, accountBase)),
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
