// `telform state claim` / `release`: hand an account from one ledger to another, explicitly.
import { Command } from 'commander';
import { liveContext, type LiveContext } from '../resources/live-side.js';
import { claimAccount, releaseAccount } from '../state/ownership.js';
import { addClientOptions } from './client-options.js';
import { collect } from './option-parsers.js';
import { processIo } from './io.js';
import type { GlobalOptions, Session } from '../run/context.js';
import { openState } from '../run/state-location.js';
import { connectCli } from './session.js';
import type { LedgerStore } from '../state/ledger-store.js';

/** Runs `work` with the session and the locked ledger of the account the credentials name. */
async function withAccount(cmd: Command, work: (store: LedgerStore, live: LiveContext, session: Session) => Promise<void>): Promise<void> {
  const io = processIo();
  const globals = cmd.optsWithGlobals<GlobalOptions>();
  const session = await connectCli(globals, io);
  try {
    const store = await openState(globals, io.env, { binding: { endpoint: session.endpointLabel, account: session.account }, lock: true });
    try {
      await work(store, liveContext(session.client), session);
    } finally {
      await store.close();
    }
  } finally {
    await session.close();
  }
}

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
      await withAccount(cmd, async (store, live, session) => {
        const takeOver = options.takeOver.flatMap((item) => item.split(',')).map((item) => item.trim()).filter(Boolean);
        const result = await claimAccount(store, live, session.account, takeOver);
        if (result.already) {
          io.stdout(`the state ${store.file} (lineage ${store.ledger.lineage}) already owns account ${session.account}\n`);
          return;
        }
        const from = result.from.length > 0 ? `, taken from the ledger of lineage ${result.from.join(', ')}` : '';
        io.stdout(`the state ${store.file} (lineage ${store.ledger.lineage}) now owns account ${session.account}${from}; other ledgers may only read it\n`);
      });
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
      await withAccount(cmd, async (store, live, session) => {
        await releaseAccount(store, live, session.account);
        io.stdout(`the state ${store.file} released account ${session.account}; another state may claim it (telform state claim), and this one refuses to write to it until it claims it again\n`);
      });
    });
}
