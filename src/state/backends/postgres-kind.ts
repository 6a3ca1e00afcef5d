// The PostgreSQL backend as the registry sees it (`postgres://` or `postgresql://` URLs, one ledger
// per workspace). Apart from postgres.ts so that telling a location apart costs nothing: the driver
// is loaded only when a database state is opened (about 40 ms of start-up for every other run).
import { describeDatabaseState, isDatabaseUrl, redactUrl } from '../../util/database-url.js';
import type { StateBackendKind } from '../backend.js';

export const postgresBackendKind: StateBackendKind = {
  name: 'postgres',
  matches: (state) => isDatabaseUrl(state),
  async open(location, env) {
    const { PostgresBackend } = await import('./postgres.js');
    return PostgresBackend.open(location.state, location.workspace, env);
  },
  describe: (location) => describeDatabaseState(location.state, location.workspace),
  flags: (location) => `--state ${redactUrl(location.state)} --workspace ${location.workspace}`,
  // Account workspaces start with a letter or digit: `_name` can never be one.
  beside: (state, name) => ({ state, workspace: `_${name}` }),
  resolveFrom: (_folder, state) => state,
};
