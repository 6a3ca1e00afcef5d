// The account's SIP IP ACL quota, predicted by the plan: the API refuses the 101st ACL, and an
// apply that meets that refusal has already sent part of its changes.
import { TelformError } from '../util/errors.js';
import { maxSipIpAcls } from '../resources/ownership-marker.js';
import type { Plan } from './plan-types.js';

/**
 * Refuses a plan that would leave the account with more SIP IP ACLs than the API allows: `held`
 * is every ACL the account holds now (ownership markers included), `claims` whether the apply
 * makes this ledger's marker first. The message counts what the manifests ask for and what the
 * claim needs, separately, and says how many to free.
 */
export function assertAclQuota(plan: Plan, held: number, claims: boolean, account: string, what: string): void {
  const creates = plan.changes.filter((change) => change.kind === 'SipIpAcl' && change.action === 'create').length;
  const deletes = plan.changes.filter((change) => change.kind === 'SipIpAcl' && change.action === 'delete').length;
  const marker = claims ? 1 : 0;
  const after = held + creates + marker - deletes;
  if (after <= maxSipIpAcls || creates + marker === 0) return;
  const needs = [
    ...(creates > 0 ? [`${creates} created by the manifests${deletes > 0 ? ` (${deletes} deleted)` : ''}`] : []),
    ...(claims ? ['1 for the ownership marker that claims the account for this state'] : []),
  ].join(' and ');
  throw new TelformError(
    'acl_quota',
    `${what} refused: account ${account} holds ${held} SIP IP ACLs and this plan needs ${needs}, ${after} in all, over the ${maxSipIpAcls} the API allows; ` +
      `free ${after - maxSipIpAcls}: remove SipIpAcl documents, or delete ACLs nobody needs (telform plan --show-unmanaged lists those no state manages; --prune-unmanaged SipIpAcl deletes them)`,
  );
}
