// `telform state claim` / `release`: hand an account from one ledger to another, explicitly.
import { Command } from 'commander';
import { addClientOptions } from './client-options.js';
import { collect } from './option-parsers.js';
import { processIo } from './io.js';
import type { GlobalOptions } from '../run/context.js';
import { claimState, releaseState } from '../run/state-hand-over.js';
import { cliContext } from './session.js';
import { describeScope, isEverything, parseScope, scopePresets } from '../resources/ownership-scope.js';

export function stateClaimCommand(): Command {
  return addClientOptions(new Command('claim'))
    .description('Make this state the owner of the account: every other ledger may then only read it.')
    .option(
      '--take-over <lineage>',
      'take the account (or the part claimed) from the ledger of this lineage; repeatable, or comma-separated',
      collect,
      [],
    )
    .option(
      '--scope <items>',
      'claim part of the account: presets (voice, messaging), kinds, prefix=TEXT; comma-separated or repeated (default: the scope the state has, everything for a new state)',
      collect,
      [],
    )
    .addHelpText(
      'after',
      `
The account records its owner in an ownership marker (an empty SIP IP ACL named
telform-owner:<lineage>) that plans, imports and unmanaged lists never show. The first apply
(or import) that writes to an account nobody owns claims it by itself; run claim to take an account
before that, or one another state released or lost. While another ledger
owns the account, claim refuses unless that ledger released it (telform state release) or
--take-over names its lineage exactly. A new state is created (with its lineage) if there is none.

A state may own part of an account instead (--scope): kinds, by preset or by name, optionally
only those whose API name starts with a prefix. States with disjoint scopes share the account;
a claim that overlaps another state's scope is refused, naming that state and the overlap, unless
--take-over names it (it then keeps what was not taken). Presets: ${Object.entries(scopePresets)
        .map(([name, kinds]) => `${name} (${kinds.join(', ')})`)
        .join('; ')}.

Examples:
  $ telform state claim                                       # nobody owns the account yet (before a first apply)
  $ telform --state voice.json state claim --scope voice      # the voice team's part; messaging may claim the rest
  $ telform --state messaging.json state claim --scope messaging
  $ telform --state team-a.json state claim --scope Trunk,TrunkIpAcl,prefix=team-a-
  $ telform --state messaging.json state claim --scope messaging,PhoneNumber --take-over 0b7e6d8e-2f4c-4f57-9a39-3d1f0c2a9b11   # move kinds from another state
  $ telform --state old.json state release && telform --state new.json state claim
  $ telform state claim --take-over 0b7e6d8e-2f4c-4f57-9a39-3d1f0c2a9b11   # the owner's state is lost`,
    )
    .action(async (options: { takeOver: string[]; scope: string[] }, cmd: Command) => {
      const io = processIo();
      const takeOver = options.takeOver
        .flatMap((item) => item.split(','))
        .map((item) => item.trim())
        .filter(Boolean);
      const scope = options.scope.length > 0 ? parseScope(options.scope) : undefined;
      const claimed = await claimState(takeOver, cmd.optsWithGlobals<GlobalOptions>(), cliContext(io), scope);
      const owner = `the state ${claimed.state} (lineage ${claimed.lineage})`;
      const what = isEverything(claimed.scope)
        ? `account ${claimed.account}`
        : `${describeScope(claimed.scope)} of account ${claimed.account}`;
      if (claimed.already) {
        io.stdout(`${owner} already owns ${what}\n`);
        return;
      }
      const from = claimed.from.length > 0 ? `, taken from the ledger of lineage ${claimed.from.join(', ')}` : '';
      io.stdout(
        `${owner} now owns ${what}${from}; other ledgers may only read ${isEverything(claimed.scope) ? 'it' : 'that part'}\n`,
      );
    });
}

export function stateReleaseCommand(): Command {
  return addClientOptions(new Command('release'))
    .description(
      'Give up ownership of the account (for another state to claim it); this state then refuses to write to it.',
    )
    .option(
      '--scope <items>',
      'release only this part of what the state owns (presets, kinds, comma-separated or repeated); its entries are forgotten, its objects stay',
      collect,
      [],
    )
    .addHelpText(
      'after',
      `
To move kinds to another state with no moment where nobody owns them, have that state claim them
with --take-over (telform state claim --scope … --take-over LINEAGE): this state keeps the rest.
Releasing first leaves the part unowned until the other state claims it.

Examples:
  $ telform --state old.json state release && telform --state new.json state claim
  $ telform --state all.json state release --scope messaging   # all.json keeps everything else`,
    )
    .action(async (options: { scope: string[] }, cmd: Command) => {
      const io = processIo();
      const part = options.scope.length > 0 ? parseScope(options.scope) : undefined;
      const released = await releaseState(cmd.optsWithGlobals<GlobalOptions>(), cliContext(io), part);
      if (released.scope) {
        const forgot =
          released.forgotten.length > 0
            ? `; it forgot ${released.forgotten.join(', ')} (the objects stay in the account)`
            : '';
        io.stdout(
          `the state ${released.state} released ${describeScope(part ?? released.scope)} of account ${released.account} and keeps ${describeScope(released.scope)}${forgot}\n`,
        );
        return;
      }
      io.stdout(
        `the state ${released.state} released account ${released.account}; another state may claim it (telform state claim), and this one refuses to write to it until it claims it again\n`,
      );
    });
}
