// The flags of a many-account run (`plan|apply|drift --accounts FILE`), shared by the three commands.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { TelformError } from '../util/errors.js';
import { parseShard, shardExpectation, type Shard } from '../util/shard.js';
import { collect, positiveInteger } from './option-parsers.js';

export interface AccountsOptionValues {
  accounts?: string;
  only: string[];
  accountParallelism: number;
  shard?: Shard;
  runId?: string;
}

/** The flags that only a run over an accounts file reads, by option name (attribute) and flag. */
const accountsOnlyFlags: ReadonlyArray<[string, string]> = [
  ['only', '--only'],
  ['accountParallelism', '--account-parallelism'],
  ['shard', '--shard'],
  ['runId', '--run-id'],
];

export function addAccountsOptions(command: Command): Command {
  // Without --accounts a run reads none of them: a --shard in a single-account job must not pass for a partition.
  command.hook('preAction', (self) => {
    if (self.opts<{ accounts?: string }>().accounts !== undefined) return;
    const given = accountsOnlyFlags.find(([attribute]) => self.getOptionValueSource(attribute) === 'cli');
    if (given) throw new TelformError('bad_option', `${given[1]} works only with --accounts FILE; this ${self.name()} runs the one account of -f`);
  });
  return command
    .option('--accounts <file>', 'run over every account of this accounts file (see docs/many-accounts.md) instead of -f')
    .option('--only <name>', 'with --accounts: only this account (repeatable)', collect, [])
    .option('--account-parallelism <n>', 'with --accounts: accounts in flight at once', positiveInteger, 4)
    .addOption(
      new Option('--shard <k/n>', 'with --accounts: only the K-th of N deterministic partitions of the accounts').argParser((value: string) => {
        const shard = parseShard(value);
        if (!shard) throw new InvalidArgumentError(shardExpectation);
        return shard;
      }),
    )
    .option('--run-id <id>', 'with --accounts: record this id of the run in the report (report merge --run-id takes only its shards)');
}
