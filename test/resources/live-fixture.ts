import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { stringify } from 'yaml';
import type { ApiClient, ApiClientOptions } from '../../src/api/client.js';
import type { DiffRules } from '../../src/engine/diff.js';
import { defaultAccount, startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import type { RequestLogEntry } from '../../src/emulator/request-log.js';
import { loadManifests } from '../../src/manifest/load.js';
import { catalog } from '../../src/resources/index.js';
import type { Kind } from '../../src/resources/kind.js';
import type { LiveContext, LiveSide } from '../../src/resources/live-side.js';
import { liveContext } from '../../src/resources/live-side.js';
import { systemClock } from '../../src/util/clock.js';
import { clientFor } from '../support/emulator.js';

/**
 * An in-process emulator and a client talking to it, for the live sides' tests. The client's
 * `--log-http` lines are kept in `httpLog`.
 */
export interface LiveFixture {
  emulator: RunningEmulator;
  client: ApiClient;
  context: LiveContext;
  httpLog: string[];
  /** `/v1/Account/{auth_id}`. */
  base: string;
  /** Requests the emulator logged since the fixture's last `mark()`. */
  requestsSinceMark(): RequestLogEntry[];
  mark(): void;
  /** Seeds a phone number through the admin route. */
  seedNumber(number: string, appId: string): Promise<void>;
  close(): Promise<void>;
}

export async function startLiveFixture(
  options: EmulatorOptions = {},
  clientOptions: Partial<ApiClientOptions> = {},
): Promise<LiveFixture> {
  const emulator = await startEmulator(options);
  const httpLog: string[] = [];
  const client = clientFor(emulator, { clock: systemClock, logHttp: (line) => httpLog.push(line), ...clientOptions });
  let since = 0;
  const fixture: LiveFixture = {
    emulator,
    client,
    // A fresh view each time: these tests read the account again after changing it, as a new run would.
    get context() {
      return liveContext(client);
    },
    httpLog,
    base: `/v1/Account/${defaultAccount.authId}`,
    requestsSinceMark: () => emulator.runtime.log.list({ type: 'request', sinceSeq: since }),
    mark: () => {
      since = emulator.runtime.log.list().at(-1)?.seq ?? since;
    },
    seedNumber: async (number, appId) => {
      const response = await fetch(`${emulator.url}/__emulator/accounts/${defaultAccount.authId}/numbers/`, {
        method: 'POST',
        body: JSON.stringify({ number, app_id: appId }),
      });
      if (response.status !== 201 && response.status !== 200)
        throw new Error(`seeding ${number} failed: ${await response.text()}`);
    },
    close: async () => {
      await client.close();
      await emulator.close();
    },
  };
  return fixture;
}

/** The kind registered under `name`, with its live side. */
export function kindNamed(name: string): Kind & { live: LiveSide } {
  const kind = catalog.get(name);
  if (!kind?.live) throw new Error(`kind ${name} has no live side`);
  return kind as Kind & { live: LiveSide };
}

export function diffRulesOf(kind: Kind): DiffRules {
  return { setFields: kind.setFields, secretFields: Object.keys(kind.secrets) };
}

/**
 * The validated spec of one manifest document (defaults filled, name field defaulted), loaded
 * from a temporary folder exactly as `telform plan` loads manifests.
 */
export async function manifestSpec(
  kind: string,
  name: string,
  spec: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-live-'));
  try {
    await writeFile(
      path.join(folder, 'resource.yaml'),
      stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec }),
    );
    const result = await loadManifests([folder], { cwd: folder, env: {} });
    expect(result.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    const [resource] = result.model.resources;
    if (!resource) throw new Error('the manifest held no resource');
    return resource.spec;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** `METHOD path` of each logged request, the account base cut off, for exact assertions. */
export function requestLines(entries: readonly RequestLogEntry[], base: string): string[] {
  return entries.map(
    (entry) => `${entry.method} ${entry.path.startsWith(base) ? entry.path.slice(base.length) : entry.path}`,
  );
}
