// `telform history`'s flag rules: one state's records, or each account's of an accounts file.
import type { Format } from '../../render/index.js';
import { Problems, type Parsed } from './parsed.js';
import { checkFormat } from './shared.js';

export interface HistoryFlags {
  format: Format;
  limit?: number;
  accounts?: string;
  only: string[];
}

export function parseHistoryArguments(flags: HistoryFlags): Parsed<HistoryFlags> {
  const problems = new Problems();
  problems.check(flags.accounts === undefined && flags.only.length > 0, '--only works only with --accounts FILE');
  checkFormat(problems, flags.format, 'history');
  return problems.result(() => flags);
}
