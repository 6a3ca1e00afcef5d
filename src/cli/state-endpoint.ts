import { Command } from 'commander';
import type { GlobalOptions } from '../run/context.js';
import { endpointSampleSize, repointState } from '../run/state-endpoint.js';
import { processIo } from './io.js';
import { cliContext } from './session.js';

/**
 * `telform state endpoint URL`: re-points the state at another endpoint of the same account (a
 * restarted `telform emulator` on another port, a proxy, a new host name). Checked first: the
 * credentials must be the state's account, and the resources it manages must be there.
 */
export function stateEndpointCommand(): Command {
  return new Command('endpoint')
    .description(
      'Re-point the state at another endpoint of the same account, after checking the account and its resources there.',
    )
    .argument('<url>', 'the new API base URL (or "local" for the embedded emulator)')
    .addHelpText(
      'after',
      `
It reads up to ${endpointSampleSize} of the managed resources at URL with the credentials of TELFORM_AUTH_ID /
TELFORM_AUTH_TOKEN and refuses unless the account is the state's and at least one of them is there.

Example:
  $ telform state endpoint http://127.0.0.1:4010    # the emulator now listens on another port`,
    )
    .action(async (url: string, _options: unknown, cmd: Command) => {
      const io = processIo();
      const done = await repointState(url, cmd.optsWithGlobals<GlobalOptions>(), cliContext(io));
      io.stdout(
        `the state ${done.state} now belongs to account ${done.account} at ${done.after} (was ${done.before}; ${done.found} of ${done.sampled} managed resources checked there)\n`,
      );
    });
}
