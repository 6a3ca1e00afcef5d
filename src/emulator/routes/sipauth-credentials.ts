import { ApiError, json, noContent, type JsonObject } from '../http.js';
import { optionalString, requiredString } from '../params.js';
import { hashPassword } from '../passwords.js';
import { findOr404, freshId, listReply } from '../records.js';
import type { Route } from '../router.js';
import type { AccountState, SipCredentialRecord } from '../state.js';

/**
 * SIP credentials (the API reference, "SIP credentials"): create, get, list, change the password, delete.
 * Errors are `{ api_id, error }` with 400 for a missing or bad parameter (SipAuth uses 400, not
 * 422), 409 for a duplicate username or a credential still assigned to an application.
 */

/** The production default realm (production's documentation); the API reference only says "a fixed service default". */
export const defaultRealm = 'app.plivo.com';
/** The API reference, Limits: credentials per account. */
export const maxSipCredentials = 200;

const usernamePattern = /^[A-Za-z0-9._-]{3,64}$/;
const assignedMessage =
  'This credential is currently assigned to an application. Remove the assignment first by setting sip_auth_type to empty.';

const collectionPath = '/SipAuth/Credential/';
const itemPath = '/SipAuth/Credential/:credential_uuid/';

/** The API reference rules 2 and 3: upper case, lower case and a digit; create also caps the length at 128. */
function checkPassword(password: string, maxLength: number | undefined): void {
  const strong = /[A-Z]/.test(password) && /[a-z]/.test(password) && /[0-9]/.test(password);
  const length = [...password].length;
  if (length < 8 || (maxLength !== undefined && length > maxLength) || !strong) {
    const bounds = maxLength === undefined ? 'at least 8 characters' : `8 to ${maxLength} characters`;
    throw new ApiError(
      400,
      `password must be ${bounds} with at least one uppercase letter, one lowercase letter and one digit`,
    );
  }
}

export function presentSipCredential(record: SipCredentialRecord, accountBase: string): JsonObject {
  return {
    credential_uuid: record.credential_uuid,
    username: record.username,
    realm: record.realm,
    resource_uri: `${accountBase}/SipAuth/Credential/${record.credential_uuid}/`,
  };
}

/** Whether an application authenticates with this credential (the API reference rule 4). */
function isAssigned(account: AccountState, credentialUuid: string): boolean {
  for (const app of account.applications.values()) {
    const usesCredential = app.sip_auth_type === 'credential' || app.sip_auth_type === 'ip_acl_and_credential';
    if (usesCredential && app.credential_uuid === credentialUuid) return true;
  }
  return false;
}

export const sipCredentialRoutes: Route[] = [
  {
    method: 'POST',
    path: collectionPath,
    writes: true,
    handle: ({ account, body, accountBase, runtime }) => {
      const username = requiredString(body, 'username');
      const password = requiredString(body, 'password');
      if (!usernamePattern.test(username)) {
        throw new ApiError(400, 'username must be 3 to 64 characters from letters, digits, ".", "_" and "-"');
      }
      checkPassword(password, 128);
      for (const existing of account.sipCredentials.values()) {
        if (existing.username === username)
          throw new ApiError(409, `username ${username} already exists in this account`);
      }
      if (account.sipCredentials.size >= maxSipCredentials) {
        throw new ApiError(400, `an account holds at most ${maxSipCredentials} SIP credentials`);
      }
      const record: SipCredentialRecord = {
        credential_uuid: freshId(account.sipCredentials, () => runtime.uuid()),
        username,
        realm: defaultRealm,
        password_hash: hashPassword(password),
        created_at: runtime.nowIso(),
      };
      account.sipCredentials.set(record.credential_uuid, record);
      return json(201, presentSipCredential(record, accountBase));
    },
  },
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase }) =>
      listReply([...account.sipCredentials.values()], query, `${accountBase}${collectionPath}`, true, (record) =>
        presentSipCredential(record, accountBase),
      ),
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params, accountBase }) => {
      const record = findOr404(account.sipCredentials, params.credential_uuid as string, 'SIP credential');
      return json(200, presentSipCredential(record, accountBase));
    },
  },
  {
    method: 'POST',
    path: itemPath,
    writes: true,
    handle: ({ account, params, body, accountBase }) => {
      const record = findOr404(account.sipCredentials, params.credential_uuid as string, 'SIP credential');
      const username = optionalString(body, 'username');
      if (username !== undefined && username !== '' && username !== record.username) {
        throw new ApiError(400, 'username cannot be changed; create a new credential instead');
      }
      const password = requiredString(body, 'password');
      checkPassword(password, undefined);
      record.password_hash = hashPassword(password);
      return json(202, {
        message: 'SIP credential updated successfully.',
        ...presentSipCredential(record, accountBase),
      });
    },
  },
  {
    method: 'DELETE',
    path: itemPath,
    writes: true,
    handle: ({ account, params }) => {
      const id = params.credential_uuid as string;
      findOr404(account.sipCredentials, id, 'SIP credential');
      if (isAssigned(account, id)) throw new ApiError(409, assignedMessage);
      account.sipCredentials.delete(id);
      return noContent();
    },
  },
];
