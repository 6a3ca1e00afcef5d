import * as z from 'zod';
import { driftReportVersion, type DriftReport } from './drift-report.js';
import { planSchema } from '../engine/plan-schema.js';

/**
 * The shape of `telform drift --format json`, from which `schemas/drift.schema.json` is generated
 * (a test fails when the committed file is stale, another that real reports match it).
 */
export const driftReportSchema = z
  .object({
    format_version: z.literal(driftReportVersion),
    status: z
      .enum(['in_sync', 'drifted', 'pending'])
      .describe('in_sync: exit 0; drifted: the account was changed outside telform, exit 2; pending: only manifest changes wait to be applied, exit 3.'),
    drifted: z.array(z.string()).describe('Addresses changed outside telform (or deleted from the account).'),
    pending: z.array(z.string()).describe('Addresses whose manifest changes wait to be applied (registry waits included).'),
    notes: z.array(z.string()).describe('Registry outcomes worth a look: declined, expired, under review.'),
    plan: planSchema.describe('The plan the report was made from.'),
  })
  .describe('A telform drift report (telform drift --format json).');

export function renderDriftJsonSchema(): string {
  const json = z.toJSONSchema(driftReportSchema, { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...json, title: `telform drift report (format ${driftReportVersion})` }, null, 2)}\n`;
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
// Fails to compile when the schema and the report type drift apart.
export const driftSchemaMatchesType: Equal<Omit<z.infer<typeof driftReportSchema>, 'format_version' | 'plan'>, DriftReport> = true;
