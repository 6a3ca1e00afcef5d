import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { mergeAccountsReports, parseAccountsReport, type AccountsReport } from '../render/accounts-report.js';
import { TelformError } from '../util/errors.js';
import { formatChoices, rendererFor } from '../render/index.js';
import { parseReportArguments, type ReportFlags } from './arguments/report.js';
import { inputOrRefuse } from './arguments/parsed.js';
import { processIo } from './io.js';
import { printable } from '../util/printable.js';

function readReports(files: readonly string[]): Promise<Array<{ file: string; report: AccountsReport }>> {
  return Promise.all(
    files.map(async (file) => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        throw new TelformError(
          'report_merge',
          `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
      }
      const report = parseAccountsReport(text, file);
      // Checked whole before any renderer reads it (a field of the wrong type would crash one); the
      // schema is loaded only here, not by every --accounts run.
      const { accountsReportProblem } = await import('../render/accounts-report-schema.js');
      const problem = accountsReportProblem(report);
      if (problem !== undefined)
        throw new TelformError(
          'report_merge',
          `${file} is not a report telform wrote: ${printable(problem)} (write shard reports with --format json)`,
        );
      return { file, report };
    }),
  );
}

/**
 * `telform report merge`: joins the JSON reports of the shards of one `--accounts --shard K/N` run
 * into the report one process would have printed, and exits with its exit code (the worst).
 */
export function reportCommand(): Command {
  const report = new Command('report').description('Work with the reports of --accounts runs.');
  report
    .command('merge')
    .description(
      'Merge the JSON reports of every shard of a run (--shard K/N) into the one report a single run prints.',
    )
    .argument('<file...>', 'JSON reports, one per shard (written with --format json)')
    .addOption(new Option('--format <format>', 'output format').choices(formatChoices('accounts')).default('text'))
    .option(
      '--run-id <id>',
      'merge only reports of this run (written with --run-id); refuse any other, such as a shard file left from an earlier run',
    )
    .addHelpText(
      'after',
      `
Exits with the merged report's exit code: the worst over the accounts (1, then 2, then 3, then 0).
Reports written with --run-id are merged only with reports of the same run.

Examples:
  $ telform drift --accounts accounts.yaml --shard 1/4 --format json > drift-1.json   # one per machine
  $ telform report merge drift-*.json --format markdown
  $ telform drift --accounts accounts.yaml --shard 1/4 --run-id "$(date -u +%F)" --format json > drift-1.json
  $ telform report merge --run-id "$(date -u +%F)" drift-*.json
  $ telform report show drift-1.json                # one shard's report as text`,
    )
    .action(async (files: string[], flags: ReportFlags) => {
      const { format, runId } = inputOrRefuse(parseReportArguments(flags));
      const merged = mergeAccountsReports(await readReports(files), runId);
      processIo().stdout(rendererFor(format, 'accounts')(merged));
      process.exitCode = merged.exit_code;
    });
  report
    .command('show')
    .description(
      "Print one JSON report of an --accounts run (a shard's too) as text, markdown or CI annotations (github, gitlab).",
    )
    .argument('<file>', 'a JSON report (written with --format json)')
    .addOption(new Option('--format <format>', 'output format').choices(formatChoices('accounts')).default('text'))
    .action(async (file: string, flags: ReportFlags) => {
      const { format } = inputOrRefuse(parseReportArguments(flags));
      const [shown] = await readReports([file]);
      if (!shown) return;
      processIo().stdout(rendererFor(format, 'accounts')(shown.report));
      process.exitCode = shown.report.exit_code;
    });
  return report;
}
