import { ApiError, json, noContent, type JsonObject } from '../http.js';
import { optionalString } from '../params.js';
import { hashPassword } from '../passwords.js';
import { findOr404, freshId, listReply } from '../records.js';
import type { Route } from '../router.js';
import type { TrunkCredentialRecord } from '../state.js';

/**
 * Trunk credentials (the API reference, "Trunk credentials"): 422 when `username` or `password` is missing
 * on create, 400 when either breaks its format (the API reference, Errors rule 5). Usernames need not be
 * unique (the spec sets no such rule). Deleting a credential a trunk uses is allowed.
 */

const collectionPath = '/Zentrunk/Credential/';
const itemPath = '/Zentrunk/Credential/:credential_uuid/';

/** The API reference, Trunk credentials table: 5 to 20 characters, alphanumeric only. */
const usernamePattern = /^[A-Za-z0-9]{5,20}$/;
/** 5 to 20 characters from alphanumerics and `~!@#$%^&*()_+`, at least one of the special ones. */
const passwordPattern = /^[A-Za-z0-9~!@#$%^&*()_+]{5,20}$/;
const specialPattern = /[~!@#$%^&*()_+]/;

export function presentTrunkCredential(record: TrunkCredentialRecord): JsonObject {
  return { credential_uuid: record.credential_uuid, name: record.name, username: record.username };
}

function checkUsername(username: string): void {
  if (!usernamePattern.test(username)) throw new ApiError(400, 'username must be 5 to 20 letters or digits');
}

function checkPassword(password: string): void {
  if (!passwordPattern.test(password) || !specialPattern.test(password)) {
    throw new ApiError(
      400,
      'password must be 5 to 20 characters from letters, digits and ~!@#$%^&*()_+, with at least one of ~!@#$%^&*()_+',
    );
  }
}

/** A string parameter where `""` counts as not given (SDKs send empty strings for unset fields). */
function given(body: JsonObject, field: string): string | undefined {
  const value = optionalString(body, field);
  return value === '' ? undefined : value;
}

export const trunkCredentialRoutes: Route[] = [
  {
    method: 'POST',
    path: collectionPath,
    writes: true,
    handle: ({ account, body, runtime }) => {
      const name = given(body, 'name') ?? '';
      const username = given(body, 'username');
      const password = given(body, 'password');
      if (username === undefined) throw new ApiError(422, 'username is required');
      if (password === undefined) throw new ApiError(422, 'password is required');
      checkUsername(username);
      checkPassword(password);
      const record: TrunkCredentialRecord = {
        credential_uuid: freshId(account.trunkCredentials, () => runtime.uuid()),
        name,
        username,
        password_hash: hashPassword(password),
        created_at: runtime.nowIso(),
      };
      account.trunkCredentials.set(record.credential_uuid, record);
      return json(201, { message: 'credential created successfully.', credential_uuid: record.credential_uuid });
    },
  },
  {
    method: 'GET',
    path: collectionPath,
    handle: ({ account, query, accountBase }) =>
      listReply(
        [...account.trunkCredentials.values()],
        query,
        `${accountBase}${collectionPath}`,
        false,
        presentTrunkCredential,
      ),
  },
  {
    method: 'GET',
    path: itemPath,
    handle: ({ account, params }) =>
      json(
        200,
        presentTrunkCredential(findOr404(account.trunkCredentials, params.credential_uuid as string, 'credential')),
      ),
  },
  {
    method: 'POST',
    path: itemPath,
    writes: true,
    handle: ({ account, params, body }) => {
      const record = findOr404(account.trunkCredentials, params.credential_uuid as string, 'credential');
      const name = given(body, 'name');
      const username = given(body, 'username');
      const password = given(body, 'password');
      if (username !== undefined) checkUsername(username);
      if (password !== undefined) checkPassword(password);
      if (name !== undefined) record.name = name;
      if (username !== undefined) record.username = username;
      if (password !== undefined) record.password_hash = hashPassword(password);
      return json(202, { message: 'Credential updated successfully.', credential_uuid: record.credential_uuid });
    },
  },
  {
    method: 'DELETE',
    path: itemPath,
    writes: true,
    handle: ({ account, params }) => {
      const id = params.credential_uuid as string;
      findOr404(account.trunkCredentials, id, 'credential');
      account.trunkCredentials.delete(id);
      return noContent();
    },
  },
];
