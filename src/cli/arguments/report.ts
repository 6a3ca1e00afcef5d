// `telform report show|merge`'s flag rules: the report read back is an accounts report, so the format
// must be one that renders it.
import type { Format } from '../../render/index.js';
import { Problems, type Parsed } from './parsed.js';
import { checkFormat } from './shared.js';

export interface ReportFlags {
  format: Format;
  /** `report merge --run-id`: merge only the reports of this run. */
  runId?: string;
}

export function parseReportArguments(flags: ReportFlags): Parsed<ReportFlags> {
  const problems = new Problems();
  checkFormat(problems, flags.format, 'accounts');
  return problems.result(() => flags);
}
