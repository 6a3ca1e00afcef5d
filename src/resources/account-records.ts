// The account's objects as the API returns them, every collection telform knows, unnormalised: what a
// snapshot (a replica of the account for rehearsals and tests) is made of. A collection the account's
// products do not include (the API answers its list 403) is reported as skipped, not as a failure.
import type { ApiClient } from '../api/client.js';
import { ApiRequestError } from '../api/errors.js';
import { listAll } from '../api/list.js';
import type { ApiRecord } from './api-records.js';

/** One collection of the account: where it is listed, the key of its items and the field that is its id. */
export interface AccountCollection {
  readonly name: AccountCollectionName;
  readonly path: string;
  readonly itemsKey: string;
  readonly idField: string;
  /** The product an account must have for the list to answer (403 otherwise). */
  readonly product: 'voice' | 'sip trunking' | '10DLC';
}

export type AccountCollectionName =
  | 'sip_credentials'
  | 'sip_ip_acls'
  | 'applications'
  | 'numbers'
  | 'trunk_credentials'
  | 'trunk_ip_acls'
  | 'origination_uris'
  | 'trunks'
  | 'profiles'
  | 'brands'
  | 'campaigns';

export const accountCollections: readonly AccountCollection[] = [
  {
    name: 'sip_credentials',
    path: '/SipAuth/Credential/',
    itemsKey: 'objects',
    idField: 'credential_uuid',
    product: 'voice',
  },
  {
    name: 'sip_ip_acls',
    path: '/SipAuth/IpAccessControlList/',
    itemsKey: 'objects',
    idField: 'ip_acl_uuid',
    product: 'voice',
  },
  { name: 'applications', path: '/Application/', itemsKey: 'objects', idField: 'app_id', product: 'voice' },
  { name: 'numbers', path: '/Number/', itemsKey: 'objects', idField: 'number', product: 'voice' },
  {
    name: 'trunk_credentials',
    path: '/Zentrunk/Credential/',
    itemsKey: 'objects',
    idField: 'credential_uuid',
    product: 'sip trunking',
  },
  {
    name: 'trunk_ip_acls',
    path: '/Zentrunk/IPAccessControlList/',
    itemsKey: 'objects',
    idField: 'ipacl_uuid',
    product: 'sip trunking',
  },
  {
    name: 'origination_uris',
    path: '/Zentrunk/URI/',
    itemsKey: 'objects',
    idField: 'uri_uuid',
    product: 'sip trunking',
  },
  { name: 'trunks', path: '/Zentrunk/Trunk/', itemsKey: 'objects', idField: 'trunk_id', product: 'sip trunking' },
  { name: 'profiles', path: '/Profile/', itemsKey: 'profiles', idField: 'profile_uuid', product: '10DLC' },
  { name: 'brands', path: '/10dlc/Brand/', itemsKey: 'brands', idField: 'brand_id', product: '10DLC' },
  { name: 'campaigns', path: '/10dlc/Campaign/', itemsKey: 'campaigns', idField: 'campaign_id', product: '10DLC' },
];

export type AccountRecords = { [name in AccountCollectionName]?: ApiRecord[] };

export interface AccountReading {
  records: AccountRecords;
  /** Collections whose product the account lacks, with the API's answer. */
  skipped: Array<{ collection: AccountCollection; message: string }>;
}

/** Lists every collection whole (concurrently; the client's limiter bounds it). */
export async function readAccountRecords(client: ApiClient): Promise<AccountReading> {
  const reading: AccountReading = { records: {}, skipped: [] };
  await Promise.all(
    accountCollections.map(async (collection) => {
      try {
        reading.records[collection.name] = await listAll<ApiRecord>(client, collection.path, {
          itemsKey: collection.itemsKey,
          idOf: (item) => String(item[collection.idField]),
        });
      } catch (error) {
        const refusal = await productRefusal(client, collection);
        if (refusal === undefined) throw error;
        reading.skipped.push({ collection, message: refusal });
      }
    }),
  );
  reading.skipped.sort((a, b) => accountCollections.indexOf(a.collection) - accountCollections.indexOf(b.collection));
  return reading;
}

/**
 * The API's message when the collection's list is refused with 403 (a product the account does not
 * have); undefined for any other failure. Asked only after a list failed, so a healthy read costs nothing more.
 */
async function productRefusal(client: ApiClient, collection: AccountCollection): Promise<string | undefined> {
  try {
    await client.get(collection.path, { limit: 1, offset: 0 });
    return undefined;
  } catch (error) {
    return error instanceof ApiRequestError && error.status === 403 ? error.apiMessage : undefined;
  }
}
