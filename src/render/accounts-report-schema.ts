// The shape of an accounts report (`plan|apply|drift --accounts --format json`), checked when
// `report show|merge` reads one back: a report file is input anyone could have written or cut
// short, and a field of the wrong type (a null summary) must be refused in one line naming the file
// and the field, not met as a crash inside a renderer.
import * as z from 'zod';
import { planSchema } from '../engine/plan-schema.js';
import { driftReportSchema } from './drift-schema.js';

const wave = z.object({
  wave: z.number().int(),
  accounts: z.array(z.string()),
  status: z.enum(['passed', 'failed', 'not_started', 'earlier']),
  failures: z.array(z.object({ account: z.string(), reason: z.string() })).optional(),
});

const outcome = z.object({
  name: z.string(),
  exit_code: z.number().int(),
  status: z.string(),
  summary: z.string(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  plan: planSchema.omit({ created_at: true, basis: true }).optional(),
  drift: driftReportSchema.omit({ format_version: true, plan: true }).optional(),
  problems: z.array(z.string()).optional(),
});

export const accountsReportSchema = z.object({
  format_version: z.number().int(),
  command: z.enum(['plan', 'apply', 'drift']),
  exit_code: z.number().int(),
  shard: z.object({ index: z.number().int().min(1), count: z.number().int().min(1) }).optional(),
  run_id: z.string().optional(),
  rollout: z.object({ resumed: z.boolean(), stopped_at: z.number().int().optional(), waves: z.array(wave) }).optional(),
  accounts: z.array(outcome),
});

/** The first place where `data` is not an accounts report, as `accounts[2].summary: why`; undefined when it is one. */
export function accountsReportProblem(data: unknown): string | undefined {
  const result = accountsReportSchema.safeParse(data);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  if (!issue) return 'not an accounts report';
  const where = issue.path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : `${text}${text === '' ? '' : '.'}${String(key)}`),
    '',
  );
  return `${where === '' ? 'the report' : where}: ${issue.message.replace(/^Invalid input: /, '')}`;
}
