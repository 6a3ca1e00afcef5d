import { statusAt } from './registry.js';
import type { AccountState, HeldLinkStatus, NumberRecord } from './state.js';

/**
 * The link of a phone number to a 10DLC campaign, as every route reads it. A link made through the
 * API carries its timed registration (decided on submission, read against the clock like a brand's);
 * one set by the admin route carries a fixed status. A number belongs to at most one campaign: its
 * `campaign_id` names it, whatever the link's status.
 */

/** The status of the number's link at `now`; null when it is linked to no campaign. */
export function linkStatus(record: NumberRecord, now: Date): HeldLinkStatus | null {
  if (record.campaign_id === null) return null;
  if (record.link) return statusAt(record.link.registration, now);
  return record.campaign_link_status;
}

/** The numbers linked (in any status) to `campaignId`, in the account's order. */
export function numbersOfCampaign(account: AccountState, campaignId: string): NumberRecord[] {
  return [...account.numbers.values()].filter((record) => record.campaign_id === campaignId);
}

/** Numbers of `campaignId` whose link is still `PROCESSING` (they block a campaign or brand delete). */
export function numbersBeingLinked(account: AccountState, campaignId: string, now: Date): string[] {
  return numbersOfCampaign(account, campaignId)
    .filter((record) => linkStatus(record, now) === 'PROCESSING')
    .map((record) => record.number);
}

/** Clears the number's link: it belongs to no campaign any more. */
export function unlink(record: NumberRecord): void {
  record.campaign_id = null;
  record.campaign_link_status = null;
  record.link = null;
  forgetHeldLink(record);
}

/** A link or unlink through the API replaces what the row showed about the number's registration. */
export function forgetHeldLink(record: NumberRecord): void {
  if (!record.row) return;
  delete record.row.tendlc_campaign_id;
  delete record.row.tendlc_registration_status;
}

/** A deactivated campaign no longer holds its numbers. */
export function releaseNumbers(account: AccountState, campaignId: string): void {
  for (const record of numbersOfCampaign(account, campaignId)) unlink(record);
}
