import * as z from 'zod';
import { validateReportVersion } from './report.js';

/**
 * The shape of `telform validate --format json`, from which `schemas/validate.schema.json` is
 * generated (a test fails when the committed file is stale, another that real reports match it).
 */
const place = z.object({ file: z.string(), line: z.number().nullable(), column: z.number().nullable() });

export const validateReportSchema = z
  .object({
    format_version: z.literal(validateReportVersion),
    valid: z.boolean().describe('No errors (warnings allowed); the exit code is 0 exactly when this is true.'),
    error_count: z.number(),
    warning_count: z.number(),
    resource_count: z.number(),
    files: z.array(z.string()).describe('The manifest files read, in the order given.'),
    problems: z.array(
      z.object({
        severity: z.enum(['error', 'warning']),
        code: z.string().describe('A stable code for the kind of problem, e.g. invalid_value, ref_missing.'),
        file: z.string().nullable(),
        line: z.number().nullable().describe('1-based; null when the problem is about a whole file.'),
        column: z.number().nullable(),
        address: z.string().nullable().describe('Kind/name of the resource, when the problem belongs to one.'),
        field: z.string().nullable().describe('Dotted path of the field, e.g. spec.entries[0].ip.'),
        message: z.string(),
        related: place
          .nullable()
          .describe('A second place the message names (a first definition, a reference target).'),
      }),
    ),
  })
  .describe('A telform validation report (telform validate --format json).');

export function renderValidateJsonSchema(): string {
  const json = z.toJSONSchema(validateReportSchema, { target: 'draft-7', io: 'output' }) as Record<string, unknown>;
  return `${JSON.stringify({ ...json, title: `telform validate report (format ${validateReportVersion})` }, null, 2)}\n`;
}
