import { Command } from 'commander';
import { acknowledgeDrift } from '../run/acknowledge.js';
import type { GlobalOptions } from '../run/context.js';
import { systemClock } from '../util/clock.js';
import { parseDuration } from '../util/duration.js';
import { TelformError } from '../util/errors.js';
import { processIo } from './io.js';
import { cliContext } from './session.js';

interface AcknowledgeFlags {
  file: string[];
  reason: string;
  ttl: string;
  as: string;
  key: string;
  policy: string[];
}

/**
 * `telform acknowledge ADDRESS`: a person acknowledges a resource's drift, as it is now, for a while
 * and for a reason; signed and recorded in the state's history (docs/approvals.md). `drift` exits 0
 * for it and serve leaves it until it ends or the object drifts further.
 */
export function acknowledgeCommand(): Command {
  return new Command('acknowledge')
    .description("Acknowledge a resource's drift for a while, signed with your SSH key and recorded in the history.")
    .argument('<address>', 'the drifted resource, Kind/name')
    .option(
      '-f, --file <path>',
      'manifest file or folder (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .requiredOption('--reason <text>', 'why the drift stays for now (recorded)')
    .requiredOption('--ttl <duration>', 'how long the acknowledgement holds, e.g. 1h or 3d')
    .requiredOption('--as <name>', 'who acknowledges: a person of the people file the policy names')
    .requiredOption('--key <file>', 'your private SSH key')
    .option(
      '--policy <file>',
      'the policy file naming the people file (repeatable)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .addHelpText(
      'after',
      `
Examples:
  $ telform acknowledge TrunkIpAcl/office -f manifests/ --reason "carrier test, CHG-118" --ttl 1h --as alice --key ~/.ssh/id_ed25519 --policy policies/approvals.yaml`,
    )
    .action(async (address: string, flags: AcknowledgeFlags, cmd: Command) => {
      const ttlMs = parseDuration(flags.ttl);
      if (ttlMs === undefined || ttlMs <= 0)
        throw new TelformError('bad_option', `--ttl ${flags.ttl}: give a duration such as 1h or 3d`);
      if (flags.file.length === 0)
        throw new TelformError('no_manifests', 'pass -f PATH: the manifests the drift is measured against');
      if (flags.policy.length === 0)
        throw new TelformError('bad_option', '--policy names the policy file with the people file');
      if (flags.reason.trim() === '') throw new TelformError('bad_option', '--reason says why the drift stays');
      const io = processIo();
      const done = await acknowledgeDrift(
        {
          paths: flags.file,
          address,
          reason: flags.reason,
          ttlMs,
          person: flags.as,
          keyFile: flags.key,
          policies: flags.policy,
          clock: systemClock,
        },
        cmd.optsWithGlobals<GlobalOptions>(),
        cliContext(io),
      );
      io.stdout(`${address}: drift acknowledged by ${flags.as} until ${done.until} (history #${done.seq})\n`);
    });
}
