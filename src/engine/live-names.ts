import type { Ledger } from '../state/ledger.js';
import type { DesiredResource, PlannerKinds } from './model.js';

/**
 * The names `telform state mv` kept (docs/manifests.md: the API's name field defaults to
 * metadata.name): a resource whose manifest leaves its name field out takes the live name the
 * ledger recorded instead of its new metadata.name, so a move changes nothing in the account.
 * A name field written in the manifest always wins.
 */
export function keepLiveNames(resources: readonly DesiredResource[], ledger: Ledger, kinds: PlannerKinds): void {
  for (const resource of resources) {
    const liveName = ledger.resources[resource.address]?.live_name;
    const field = kinds.get(resource.kind)?.nameField;
    if (liveName === undefined || field === undefined || !resource.nameDefaulted) continue;
    resource.spec[field] = liveName;
  }
}
