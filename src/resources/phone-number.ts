import * as z from 'zod';
import { reference } from './fields.js';
import type { Kind } from './kind.js';
import { builtOnce } from './kind.js';
import { jsonOf, type SnapshotJson } from './snapshot-record.js';
import { numberPath } from './tendlc-api.js';
import { linkFailedBehindRow, phoneNumberLive, settleNumberRows } from './phone-number-live.js';

const phoneNumberSpec = builtOnce(() =>
  z
    .strictObject({
      number: z
        .string()
        .regex(/^\+?[1-9][0-9]{7,14}$/, { error: 'must be an E.164 number such as +14155550100 (the + is optional)' })
        .describe('The number, E.164 (the + is optional). It identifies the number: one document per number.'),
      app_id: reference(
        z.string().regex(/^[A-Za-z0-9-]{1,64}$/, { error: 'must be an application id or an inbound trunk id' }),
        'Trunk',
        'an application id or an inbound trunk id',
      )
        .optional()
        .describe(
          'Where its calls go: { ref: <inbound Trunk> }, or the id of an application or trunk not managed here. Left out: not attached.',
        ),
      campaign_id: reference(
        // The registry's ids: C and 6 capitals or digits (as the registry's examples show: CAOHTU5, CUOGHIN).
        z.string().regex(/^C[A-Z0-9]{6}$/, {
          error: 'must be a campaign id: C and 6 capital letters or digits, such as CAOHTU5',
        }),
        'Campaign',
        'a campaign id',
      )
        .optional()
        .describe(
          'The 10DLC campaign its messages are sent under: { ref: <Campaign> } or a campaign id. Linked once the campaign is ACTIVE.',
        ),
    })
    .describe('PhoneNumber spec.'),
);

/**
 * A phone number the account already owns (docs/manifests.md): what it is attached to and the
 * 10DLC campaign it is linked to. telform never buys or releases numbers; removing the document
 * detaches and unlinks the number.
 */
/** A number's columns the emulator computes itself (its own id path, the attachment as a URI). */
const computedNumberColumns = new Set(['number', 'application', 'app_id', 'resource_uri']);
const heldLinkStatuses = new Set(['PROCESSING', 'COMPLETED', 'FAILED', 'REGISTERED']);

/** A number as a snapshot keeps it: what it is attached to and linked to, and every other column of its row. */
function numberAsHeld(record: Readonly<Record<string, unknown>>): SnapshotJson {
  const out: Record<string, SnapshotJson> = { number: String(record.number ?? '') };
  const attachedTo =
    typeof record.app_id === 'string' && record.app_id !== '' ? record.app_id : lastSegment(record.application);
  if (attachedTo) out.app_id = attachedTo;
  const campaign = record.tendlc_campaign_id;
  const status =
    typeof record.tendlc_registration_status === 'string' ? record.tendlc_registration_status.toUpperCase() : undefined;
  if (typeof campaign === 'string' && campaign !== '') {
    out.campaign_id = campaign;
    if (linkFailedBehindRow(record)) out.campaign_link_status = 'FAILED';
    else if (status && heldLinkStatuses.has(status)) out.campaign_link_status = status;
  }
  const row: Record<string, SnapshotJson> = {};
  for (const [column, value] of Object.entries(record))
    if (!computedNumberColumns.has(column)) row[column] = jsonOf(value);
  out.row = row;
  return out;
}

function lastSegment(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri === '') return undefined;
  const segments = uri.split('/').filter((segment) => segment !== '');
  return segments[segments.length - 1];
}

export const phoneNumber = {
  name: 'PhoneNumber',
  description:
    'A phone number the account owns: the inbound trunk or application it is attached to and the 10DLC campaign it is linked to.',
  get spec() {
    return phoneNumberSpec();
  },
  nameField: undefined,
  references: { app_id: 'Trunk', campaign_id: 'Campaign' },
  referenceRules: {
    // Only inbound trunks can carry numbers; the API may accept the attach anyway, and the number would stop answering.
    app_id: (target) =>
      target['trunk_direction'] === 'outbound'
        ? 'is an outbound trunk; only inbound trunks can be attached to phone numbers'
        : undefined,
  },
  secrets: {},
  setFields: {},
  uniqueFields: ['number'],
  rules: [],
  checks: [],
  live: phoneNumberLive,
  // Its calls go to the trunk (or application) it is attached to; its messages go under its campaign.
  traffic: { calls: 'app_id', messages: 'campaign_id' },
  // A campaign link is the registry's to approve; its callbacks name the number (with or without its +).
  registry: {
    vetted: false,
    unregistered: 'UNLINKED',
    callback: {
      types: ['number_linking', 'number_unlinking'],
      idField: 'number',
      id: (value) => value.replace(/^\+/, ''),
      untyped: false,
    },
  },
  snapshot: {
    collection: 'numbers',
    path: numberPath,
    itemsKey: 'objects',
    idField: 'number',
    seed: 'section',
    fields: {},
    project: numberAsHeld,
    settle: settleNumberRows,
  },
  scope: { code: 'pn', preset: 'messaging' },
} as const satisfies Kind;
