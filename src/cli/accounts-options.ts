// The flags of a many-account run (`plan|apply|drift --accounts FILE`), shared by the three commands;
// a rule about them is in arguments/shared.ts (without --accounts, none of them may be given).
import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseShard, shardExpectation, type Shard } from '../util/shard.js';
import { collect, positiveInteger } from './option-parsers.js';

export interface AccountsOptionValues {
  accounts?: string;
  only: string[];
  accountParallelism: number;
  shard?: Shard;
  runId?: string;
}

export function addAccountsOptions(command: Command): Command {
  return command
    .option(
      '--accounts <file>',
      'run over every account of this accounts file (see docs/many-accounts.md) instead of -f',
    )
    .option('--only <name>', 'with --accounts: only this account (repeatable)', collect, [])
    .option('--account-parallelism <n>', 'with --accounts: accounts in flight at once', positiveInteger, 4)
    .addOption(
      new Option(
        '--shard <k/n>',
        'with --accounts: only the K-th of N deterministic partitions of the accounts',
      ).argParser((value: string) => {
        const shard = parseShard(value);
        if (!shard) throw new InvalidArgumentError(shardExpectation);
        return shard;
      }),
    )
    .option(
      '--run-id <id>',
      'with --accounts: record this id of the run in the report (report merge --run-id takes only its shards)',
    );
}
