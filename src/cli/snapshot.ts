// `telform snapshot --out FILE`: parse, take the snapshot (run/snapshot.ts), write it, say what was read.
import { Command } from 'commander';
import type { GlobalOptions } from '../run/context.js';
import { isSnapshotText, snapshotText, takeSnapshot } from '../run/snapshot.js';
import { checkOutputFile, outputGuard, writeOutputFile } from '../run/output-file.js';
import { printable } from '../util/printable.js';
import { processIo } from './io.js';
import { cliContext } from './session.js';

interface SnapshotOptions {
  out: string;
}

export function snapshotCommand(): Command {
  return new Command('snapshot')
    .description(
      'Read the whole account into a file the emulator loads: a replica for rehearsals and tests (no secret is in it).',
    )
    .requiredOption('--out <file>', 'where to write the snapshot (JSON)')
    .addHelpText(
      'after',
      `
The snapshot holds every object telform knows (SIP credentials and ACLs, applications, numbers with
their campaign links, trunks and their parts, profiles, brands and campaigns) as the API returned it:
legacy values and fields the API does not read back stay as they are. Passwords are never returned by
the API, so none is in the file. It sends no write and needs no state.

Examples:
  $ telform snapshot --out account.snapshot.json
  $ telform emulator --data account.snapshot.json       # serve the replica (kept in memory)
  $ telform plan -f manifests/ --rehearse              # snapshot, apply on the replica, report`,
    )
    .action(async (options: SnapshotOptions, cmd: Command) => {
      const io = processIo();
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const guard = {
        ...outputGuard('--out', [], globals, { io }),
        replaces: { what: 'a snapshot', test: isSnapshotText },
      };
      // Checked before the account is read, and again as it is written.
      await checkOutputFile(options.out, guard);
      const snapshot = await takeSnapshot({ globals, now: new Date().toISOString() }, cliContext(io));
      await writeOutputFile(options.out, guard, snapshotText(snapshot), 0o600);
      for (const skip of snapshot.skipped) {
        io.stderr(
          `note: ${skip.collection.path} was not read: the account does not have ${skip.collection.product ?? 'voice'} (${printable(skip.message)})`,
        );
      }
      const total = Object.values(snapshot.counts).reduce((sum, count) => sum + count, 0);
      io.stdout(`wrote ${options.out}: ${total} objects of account ${printable(snapshot.account)}\n`);
    });
}
