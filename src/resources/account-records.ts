// The account's objects as the API returns them, every collection of the catalog's kinds (`Kind.snapshot`),
// unnormalised: what a snapshot (a replica of the account for rehearsals and tests) is made of. A collection
// the account's products do not include (the API answers its list 403) is reported as skipped, not as a failure.
import type { ApiClient } from '../api/client.js';
import { ApiRequestError } from '../api/errors.js';
import { listAll } from '../api/list.js';
import type { ApiRecord } from './api-records.js';
import { catalog, type KindCatalog } from './index.js';
import type { KindSnapshot } from './snapshot-record.js';

/** One collection of the account (a kind's `snapshot`), with the product an account must have for its list to answer. */
export interface AccountCollection extends KindSnapshot {
  /** The kind's product (`Kind.live.product`); undefined for what every account has (voice). */
  readonly product: string | undefined;
}

/** The collections of a catalog's kinds, in its order. */
function accountCollections(kinds: KindCatalog): AccountCollection[] {
  return kinds.kinds.map((kind) => ({ ...kind.snapshot, product: kind.live.product }));
}

/** The records read, by collection name. */
type AccountRecords = Record<string, ApiRecord[]>;

export interface AccountReading {
  records: AccountRecords;
  /** Collections whose product the account lacks, with the API's answer. */
  skipped: Array<{ collection: AccountCollection; message: string }>;
}

/** Lists every collection whole (concurrently; the client's limiter bounds it). */
export async function readAccountRecords(client: ApiClient, kinds: KindCatalog = catalog): Promise<AccountReading> {
  const reading: AccountReading = { records: {}, skipped: [] };
  const collections = accountCollections(kinds);
  await Promise.all(
    collections.map(async (source) => {
      try {
        const rows = await listAll<ApiRecord>(client, source.path, {
          itemsKey: source.itemsKey,
          idOf: (item) => String(item[source.idField]),
        });
        reading.records[source.collection] = source.settle
          ? ((await source.settle(client, rows)) as ApiRecord[])
          : rows;
      } catch (error) {
        const refusal = await productRefusal(client, source);
        if (refusal === undefined) throw error;
        reading.skipped.push({ collection: source, message: refusal });
      }
    }),
  );
  reading.skipped.sort((a, b) => collections.indexOf(a.collection) - collections.indexOf(b.collection));
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
