// The `state endpoint URL` operation: re-points a ledger at another endpoint of the same account (a
// restarted emulator on another port, a proxy, a new host name), after checking there that the
// credentials are the ledger's account and that the resources it manages exist.
import { catalog } from '../resources/index.js';
import { liveContext } from '../resources/live-side.js';
import { TelformError } from '../util/errors.js';
import type { GlobalOptions, RunContext } from './context.js';
import { openState } from './state-location.js';

/** Managed resources read back at the new endpoint before the state is re-pointed at it. */
export const endpointSampleSize = 5;

export interface Repointed {
  /** The state, as its backend names it. */
  state: string;
  account: string;
  before: string;
  after: string;
  /** Of the managed resources read at the new endpoint, how many were there. */
  found: number;
  sampled: number;
}

export async function repointState(url: string, globals: GlobalOptions, context: RunContext): Promise<Repointed> {
  const { io } = context;
  const store = await openState(globals, io.env, { lock: true, notify: io.stderr });
  try {
    const session = await context.connect({ ...globals, endpoint: url }, io);
    try {
      const ledger = store.ledger;
      if (session.account !== ledger.account) {
        throw new TelformError(
          'state_endpoint_account',
          `the credentials are for account ${session.account}, and the state ${store.file} belongs to account ${ledger.account}; nothing was changed`,
        );
      }
      const live = liveContext(session.client);
      const sample = Object.values(ledger.resources).slice(0, endpointSampleSize);
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
      return {
        state: store.file,
        account: ledger.account,
        before,
        after: session.endpointLabel,
        found,
        sampled: sample.length,
      };
    } finally {
      await session.close();
    }
  } finally {
    await store.close();
  }
}
