import { Command } from 'commander';
import { TelformError } from '../util/errors.js';
import { catalog } from '../resources/index.js';
import { liveContext } from '../resources/live-side.js';
import { processIo } from './io.js';
import type { GlobalOptions } from '../run/context.js';
import { connectCli } from './session.js';
import { openState } from '../run/state-location.js';

/** Managed resources read back at the new endpoint before the state is re-pointed at it. */
const sampleSize = 5;

/**
 * `telform state endpoint URL`: re-points the state at another endpoint of the same account (a
 * restarted `telform emulator` on another port, a proxy, a new host name). Checked first: the
 * credentials must be the state's account, and the resources it manages must be there.
 */
export function stateEndpointCommand(): Command {
  return new Command('endpoint')
    .description("Re-point the state at another endpoint of the same account, after checking the account and its resources there.")
    .argument('<url>', 'the new API base URL (or "local" for the embedded emulator)')
    .addHelpText(
      'after',
      `
It reads up to ${sampleSize} of the managed resources at URL with the credentials of TELFORM_AUTH_ID /
TELFORM_AUTH_TOKEN and refuses unless the account is the state's and at least one of them is there.

Example:
  $ telform state endpoint http://127.0.0.1:4010    # the emulator now listens on another port`,
    )
    .action(async (url: string, _options: unknown, cmd: Command) => {
      const io = processIo();
      const globals = cmd.optsWithGlobals<GlobalOptions>();
      const store = await openState(globals, io.env, { lock: true });
      try {
        const session = await connectCli({ ...globals, endpoint: url }, io);
        try {
          const ledger = store.ledger;
          if (session.account !== ledger.account) {
            throw new TelformError(
              'state_endpoint_account',
              `the credentials are for account ${session.account}, and the state ${store.file} belongs to account ${ledger.account}; nothing was changed`,
            );
          }
          const live = liveContext(session.client);
          const sample = Object.values(ledger.resources).slice(0, sampleSize);
          let found = 0;
          for (const entry of sample) {
            const kind = catalog.get(entry.kind);
            if (kind && (await kind.live.read(live, entry.id))) found += 1;
          }
          if (sample.length > 0 && found === 0) {
            throw new TelformError(
              'state_endpoint_empty',
              `none of the ${sample.length} managed resources read at ${session.endpointLabel} exists there, so it is not where this state's account lives; nothing was changed`,
            );
          }
          const before = ledger.endpoint;
          store.rebind(session.endpointLabel);
          io.stdout(`the state ${store.file} now belongs to account ${ledger.account} at ${session.endpointLabel} (was ${before}; ${found} of ${sample.length} managed resources checked there)\n`);
        } finally {
          await session.close();
        }
      } finally {
        await store.close();
      }
    });
}
