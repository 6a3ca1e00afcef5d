import type { ApiClient } from '../api/client.js';
import { ApiRequestError } from '../api/errors.js';
import { createWithRecovery, deleteIdempotent } from '../api/writes.js';
import { TelformError } from '../util/errors.js';
import { itemPath, readRecord, text, upperText } from './api-records.js';
import type { LiveObject, LiveSide, RegistryStatus } from './live-side.js';
import { accountNumbers, campaignPath, numberPath } from './tendlc-api.js';

/**
 * The live side of PhoneNumber: a number the account owns, its attachment (`app_id`: an inbound
 * trunk or an application, as production documents the number update) and its 10DLC campaign link (the
 * number linking). telform never buys or releases a number: "delete" detaches and unlinks it.
 */

type RawNumber = Record<string, unknown>;

/**
 * Link statuses of a number that is linked or being linked (`tendlc_registration_status`). Real
 * accounts also show `REGISTERED` for a linked number, and no status at all (`null`) beside a
 * campaign id: neither is a failed link (re-linking such a number is refused as already requested).
 */
const linked = new Set(['PROCESSING', 'COMPLETED', 'REGISTERED']);

/** Statuses that say the link was declined. */
const declined = new Set(['FAILED', 'REJECTED', 'DECLINED']);

/**
 * What a number row alone says of its link to the campaign it names: linked, declined, or neither
 * (`UNREGISTERED` beside a campaign id, as SDK mocks show it, or a status unknown to telform): then the
 * campaign's number route is asked, and only a failure it reports makes the link a declined one.
 */
function rowLink(status: string | undefined): 'linked' | 'declined' | 'ask' {
  if (status === undefined || linked.has(status)) return 'linked';
  return declined.has(status) ? 'declined' : 'ask';
}

/** What is known of a number's link beyond its row: declined (with why, when known), or its route's status. */
type LinkReading = { declined: true; reason?: string } | { declined: false; status?: string };

/** The API's form of a number: E.164 digits without the `+`, as production's number routes take it. */
export function numberDigits(value: unknown): string | undefined {
  const written = text(value);
  return written === undefined ? undefined : written.replace(/^\+/, '');
}

/**
 * What `application` names: a number on a trunk shows the trunk's resource path
 * (`…/Zentrunk/Trunk/{trunk_id}/`), one on an application `…/Application/{app_id}/` (as production and its CLI show it).
 */
function attachmentOf(raw: RawNumber): { id: string; type: 'trunk' | 'application' } | undefined {
  const path = text(raw.application) ?? '';
  const trunk = /\/(?:Zentrunk|Trunking)\/Trunk\/([^/]+)\/?$/.exec(path);
  if (trunk) return { id: trunk[1] as string, type: 'trunk' };
  const application = /\/Application\/([^/]+)\/?$/.exec(path);
  if (application) return { id: application[1] as string, type: 'application' };
  return undefined;
}

/**
 * A live number in the manifest's shape. A declined link (the row or the campaign's number route says
 * it failed) is no link: the spec leaves `campaign_id` out, so the next apply links it again, and the
 * plan reports the failure (its reason, when known). A row whose status says neither is a link.
 */
export function normalisePhoneNumber(raw: RawNumber, reading?: LinkReading): LiveObject {
  const id = numberDigits(raw.number) ?? '';
  const spec: Record<string, unknown> = { number: id };
  const attachment = attachmentOf(raw);
  if (attachment) spec.app_id = attachment.id;
  const campaign = text(raw.tendlc_campaign_id);
  const status = upperText(raw.tendlc_registration_status);
  const isDeclined = reading?.declined ?? rowLink(status) === 'declined';
  let registry: RegistryStatus | undefined;
  if (campaign !== undefined && !isDeclined) {
    spec.campaign_id = campaign;
    const shown = (reading?.declined === false ? reading.status : undefined) ?? status;
    if (shown !== undefined) registry = { registration_status: shown };
  } else if (campaign !== undefined) {
    const reason = reading?.declined ? reading.reason : undefined;
    registry = { registration_status: 'FAILED', error_reason: reason ?? `the link to campaign ${campaign} failed` };
  }
  return {
    id,
    spec,
    ...(registry ? { registry } : {}),
    facts: {
      ...(attachment ? { attachment: attachment.type } : {}),
      ...(campaign !== undefined ? { linkedCampaign: campaign } : {}),
    },
  };
}

/** `…/Campaign/{id}/Number/{number}/`: the link of one number (status and, when failed, why). */
function linkPath(campaignId: string, number: string): string {
  return `${itemPath(campaignPath, campaignId)}Number/${encodeURIComponent(number)}/`;
}

/** The number's entry on the campaign's number route: its status and, when it failed, why (undefined: none). */
async function linkEntry(
  client: ApiClient,
  campaignId: string,
  number: string,
): Promise<{ status?: string; why?: string } | undefined> {
  const body = await readRecord<Record<string, unknown>>(client, linkPath(campaignId, number), 'link');
  const entries = Array.isArray(body?.phone_numbers) ? (body.phone_numbers as unknown[]) : [];
  const entry = entries.find(
    (item): item is RawNumber =>
      item !== null && typeof item === 'object' && numberDigits((item as RawNumber).number) === number,
  );
  if (entry === undefined) return undefined;
  const why = [text(entry.error_code), text(entry.error_reason)].filter((part) => part !== undefined).join(': ');
  const status = upperText(entry.status);
  return { ...(status === undefined ? {} : { status }), ...(why === '' ? {} : { why }) };
}

/** The route's answer as one sentence, for a link whose reading failed. */
function answerOf(error: unknown): string {
  return error instanceof ApiRequestError ? `the API answered ${error.status}: ${error.apiMessage}` : String(error);
}

/**
 * What the campaign's number route says of a link the row left in doubt or showed declined. That read
 * concerns this one number (a "not linked" answer may come as 400 rather than 404), so its failure never
 * stops the run: a declined link keeps the row's word with what the API said, and a link in doubt stays
 * a link (telform never reads a failure into a row that does not show one).
 */
async function readLink(
  client: ApiClient,
  campaignId: string,
  number: string,
  row: 'declined' | 'ask',
  rowStatus: string | undefined,
): Promise<LinkReading> {
  let entry: { status?: string; why?: string } | undefined;
  try {
    entry = await linkEntry(client, campaignId, number);
  } catch (error) {
    if (!(error instanceof TelformError) || error.code === 'client_closed') throw error;
    if (row === 'ask') return { declined: false, ...(rowStatus === undefined ? {} : { status: rowStatus }) };
    return {
      declined: true,
      reason: `the link to campaign ${campaignId} failed (its reason could not be read: ${answerOf(error)})`,
    };
  }
  const reason = entry?.why === undefined ? undefined : `linking to campaign ${campaignId} failed: ${entry.why}`;
  const routeDeclined = entry !== undefined && (entry.why !== undefined || declined.has(entry.status ?? ''));
  if (row === 'declined' || routeDeclined) return { declined: true, ...(reason === undefined ? {} : { reason }) };
  const status = entry?.status !== undefined && linked.has(entry.status) ? entry.status : rowStatus;
  return { declined: false, ...(status === undefined ? {} : { status }) };
}

async function normaliseWithFailure(client: ApiClient, raw: RawNumber): Promise<LiveObject> {
  const campaign = text(raw.tendlc_campaign_id);
  const status = upperText(raw.tendlc_registration_status);
  const row = rowLink(status);
  if (campaign === undefined || row === 'linked') return normalisePhoneNumber(raw);
  return normalisePhoneNumber(raw, await readLink(client, campaign, numberDigits(raw.number) ?? '', row, status));
}

/** Rows (as read, unchanged) whose link the campaign's number route reported failed. */
const failedLinkRows = new WeakSet<object>();

/** Whether the campaign's number route reported this row's link failed when a snapshot read it. */
export function linkFailedBehindRow(row: object): boolean {
  return failedLinkRows.has(row);
}

/**
 * Number rows as a snapshot reads them: a row that leaves its link in doubt (`UNREGISTERED` beside a
 * campaign id) is asked of the campaign's number route, and remembered when that reports the link
 * failed; the row itself is kept exactly as read. A replica then holds the link failed, as the account does.
 */
export async function settleNumberRows(
  client: ApiClient,
  rows: ReadonlyArray<Readonly<RawNumber>>,
): Promise<Array<Readonly<RawNumber>>> {
  await Promise.all(
    rows.map(async (raw) => {
      const campaign = text(raw.tendlc_campaign_id);
      const status = upperText(raw.tendlc_registration_status);
      if (campaign === undefined || rowLink(status) !== 'ask') return;
      const reading = await readLink(client, campaign, numberDigits(raw.number) ?? '', 'ask', status);
      if (reading.declined) failedLinkRows.add(raw);
    }),
  );
  return [...rows];
}

async function readNumber(client: ApiClient, number: string): Promise<RawNumber | undefined> {
  return readRecord<RawNumber>(client, itemPath(numberPath, number), 'object');
}

/** Attaches to `appId`, or detaches with `""` (the API reads an absent `app_id` as "leave it"). */
async function attach(client: ApiClient, number: string, appId: string): Promise<void> {
  await client.request('POST', itemPath(numberPath, number), { body: { app_id: appId }, mode: 'idempotent' });
}

async function unlink(client: ApiClient, campaignId: string, number: string): Promise<void> {
  try {
    await deleteIdempotent(client, linkPath(campaignId, number));
  } catch (error) {
    if (error instanceof ApiRequestError) {
      throw new TelformError(
        'unlink_refused',
        `number ${number} was not unlinked from campaign ${campaignId}: the API answered ${error.status}: ${error.apiMessage}`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

/** Asks for the link; a lost answer is recovered by reading the number (the API refuses a second link). */
async function link(client: ApiClient, campaignId: string, number: string): Promise<void> {
  await createWithRecovery(client, `${itemPath(campaignPath, campaignId)}Number/`, { numbers: [number] }, async () => {
    const raw = await readNumber(client, number);
    return raw !== undefined && text(raw.tendlc_campaign_id) === campaignId ? number : undefined;
  });
}

export const phoneNumberLive: LiveSide = {
  naturalKey: (spec) => numberDigits(spec.number),
  naturalKeyWord: 'number',

  async list(context) {
    return Promise.all((await accountNumbers(context)).map((raw) => normaliseWithFailure(context.client, raw)));
  },

  // Read directly, not from the run's shared list: apply reads a number after changing it.
  async read({ client }, id) {
    const raw = await readNumber(client, id);
    return raw === undefined ? undefined : normaliseWithFailure(client, raw);
  },

  create(_context, spec) {
    throw new TelformError(
      'not_in_account',
      `the account does not own the number ${String(spec.number)}; telform never buys numbers`,
    );
  },

  async update({ client }, { id, desired, live, changedFields }) {
    if (numberDigits(desired.number) !== id) {
      throw new TelformError(
        'not_updatable',
        `PhoneNumber ${id}: the document now names ${String(desired.number)}; one document manages one number, so give the new number its own document`,
      );
    }
    if (changedFields.includes('app_id')) await attach(client, id, text(desired.app_id) ?? '');
    if (!changedFields.includes('campaign_id')) return;
    const current = live.facts?.linkedCampaign;
    const wanted = text(desired.campaign_id);
    // A number belongs to one campaign at most: leave the old one first (a failed link is left too).
    if (current !== undefined && current !== wanted) await unlink(client, current, id);
    if (wanted !== undefined) await link(client, wanted, id);
  },

  async delete({ client }, id) {
    const raw = await readNumber(client, id);
    if (raw === undefined) return;
    if (attachmentOf(raw)) await attach(client, id, '');
    const campaign = text(raw.tendlc_campaign_id);
    if (campaign !== undefined) await unlink(client, campaign, id);
  },

  // The API unlinks a number only once its link is decided: leaving a campaign (or moving to another) while the
  // link is still PROCESSING is refused, so the plan says so instead of showing an update apply would meet refused.
  updateRefusal(live, _desired, changedFields) {
    const current = live.facts?.linkedCampaign;
    if (current === undefined || live.registry?.registration_status !== 'PROCESSING') return undefined;
    if (!changedFields?.includes('campaign_id')) return undefined;
    return `its link to campaign ${current} is still PROCESSING: the API unlinks a number only once its link is COMPLETED or FAILED; apply again then`;
  },

  keyField: {
    field: 'number',
    reason: (from, to) =>
      `names the number this document manages (${from}); one document manages one number, so give ${to} its own document (and remove this one to detach ${from})`,
    explain:
      'names the number this document manages; one document manages one number, so give another number its own document',
  },

  // `number` is the key: a read returns it without the `+` a manifest may write, so it is compared with what was applied.
  fields: { updatable: ['number', 'app_id', 'campaign_id'], replaceOn: [], immutable: [], unreadable: ['number'] },
  requests: {
    delete: 3,
    update: (patch) => Math.max(1, new Set(patch.map((operation) => operation.path.split('/')[1])).size),
  },
  billableUpdateUsd: 0,
  replaceStrategy: 'create_before_delete',
  irreversibleDelete: false,
  followsReadiness: true,

  absentError: (desired) =>
    `the account does not own the number ${String(desired.number)}; telform never buys or releases numbers`,

  impact(live, desired) {
    const from = text(live.spec.app_id);
    if (from === undefined || desired?.app_id !== undefined) return undefined;
    const what = live.facts?.attachment === 'trunk' ? `trunk ${from}` : `application ${from}`;
    return { flag: 'breaks_calls', reason: `detaches it from ${what}: calls to ${live.id} stop reaching it` };
  },

  readiness(live) {
    const status = live.registry?.registration_status;
    if (status === 'PROCESSING') return 'pending';
    if (status === 'FAILED') return 'failed';
    return 'ready';
  },

  idle: (live) => live.spec.app_id === undefined && live.spec.campaign_id === undefined && live.registry === undefined,
};
