// `telform state claim` / `release`: hand an account from one ledger to another, explicitly.
import { Command } from 'commander';
import { addClientOptions } from './client-options.js';
import { collect } from './option-parsers.js';
import { processIo } from './io.js';
import type { GlobalOptions } from '../run/context.js';
import { claimState, releaseState } from '../run/state-hand-over.js';
import { cliContext } from './session.js';

export function stateClaimCommand(): Command {
  return addClientOptions(new Command('claim'))
    .description('Make this state the owner of the account: every other ledger may then only read it.')
    .option('--take-over <lineage>', "take the account from the ledger of this lineage (its state is lost); repeatable, or comma-separated", collect, [])
    .addHelpText(
      'after',
      `
The account records its owner in an ownership marker (an empty SIP IP ACL named
telform-owner:<lineage>) that plans, imports and unmanaged lists never show. The first apply
(or import) that writes to an account nobody owns claims it by itself; run claim to take an account
before that, or one another state released or lost. While another ledger
owns the account, claim refuses unless that ledger released it (telform state release) or
--take-over names its lineage exactly. A new state is created (with its lineage) if there is none.

Examples:
  $ telform state claim                                       # nobody owns the account yet (before a first apply)
  $ telform --state old.json state release && telform --state new.json state claim
  $ telform state claim --take-over 0b7e6d8e-2f4c-4f57-9a39-3d1f0c2a9b11   # the owner's state is lost`,
    )
    .action(async (options: { takeOver: string[] }, cmd: Command) => {
      const io = processIo();
      const takeOver = options.takeOver.flatMap((item) => item.split(',')).map((item) => item.trim()).filter(Boolean);
      const claimed = await claimState(takeOver, cmd.optsWithGlobals<GlobalOptions>(), cliContext(io));
      const owner = `the state ${claimed.state} (lineage ${claimed.lineage})`;
      if (claimed.already) {
        io.stdout(`${owner} already owns account ${claimed.account}\n`);
        return;
      }
      const from = claimed.from.length > 0 ? `, taken from the ledger of lineage ${claimed.from.join(', ')}` : '';
      io.stdout(`${owner} now owns account ${claimed.account}${from}; other ledgers may only read it\n`);
    });
}

export function stateReleaseCommand(): Command {
  return addClientOptions(new Command('release'))
    .description('Give up ownership of the account (for another state to claim it); this state then refuses to write to it.')
    .addHelpText(
      'after',
      `
Example:
  $ telform --state old.json state release && telform --state new.json state claim`,
    )
    .action(async (_options: unknown, cmd: Command) => {
      const io = processIo();
      const released = await releaseState(cmd.optsWithGlobals<GlobalOptions>(), cliContext(io));
      io.stdout(`the state ${released.state} released account ${released.account}; another state may claim it (telform state claim), and this one refuses to write to it until it claims it again\n`);
    });
}
