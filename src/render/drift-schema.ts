// The drift report's shape, written once as a zod schema: its types are inferred from it and
// `schemas/drift.schema.json` is generated from it (a test fails when the committed file is stale,
// another that real reports match it). What the report is: drift-report.ts.
import * as z from 'zod';
import { planSchema } from '../engine/plan-schema.js';
import { driftReportVersion } from './drift-report.js';

export const driftReportSchema = z
  .object({
    format_version: z.literal(driftReportVersion),
    status: z
      .enum(['in_sync', 'drifted', 'pending'])
      .describe(
        'in_sync: exit 0; drifted: the account was changed outside telform, exit 2; pending: only manifest changes wait to be applied, exit 3.',
      ),
    /** Changed outside telform (live differs from the last applied spec, or deleted). */
    drifted: z.array(z.string()).describe('Addresses changed outside telform (or deleted from the account).'),
    /** Manifest changes waiting to be applied (including registry waits). */
    pending: z
      .array(z.string())
      .describe('Addresses whose manifest changes wait to be applied (registry waits included).'),
    notes: z.array(z.string()).describe('Registry outcomes worth a look: declined, expired, under review.'),
    acknowledged: z
      .array(
        z.object({
          address: z.string(),
          by: z.string(),
          reason: z.string(),
          until: z.string(),
          seq: z.number().describe('The history record of the acknowledgement.'),
        }),
      )
      .optional()
      .describe(
        'Drift a person acknowledged (telform acknowledge): not counted as drift until it ends or the object drifts further.',
      ),
    plan: planSchema.describe('The plan the report was made from.'),
  })
  .describe('A telform drift report (telform drift --format json).');

/** The report as the drift operation returns it: the JSON form without its version and plan. */
export type DriftReport = Omit<z.infer<typeof driftReportSchema>, 'format_version' | 'plan'>;
export type DriftStatus = DriftReport['status'];

export function renderDriftJsonSchema(): string {
  const json = z.toJSONSchema(driftReportSchema, { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...json, title: `telform drift report (format ${driftReportVersion})` }, null, 2)}\n`;
}
