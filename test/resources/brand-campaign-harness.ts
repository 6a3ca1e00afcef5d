import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ApiClient } from '../../src/api/client.js';
import type { Clock } from '../../src/util/clock.js';
import { diffSpecs, type SpecDiff } from '../../src/engine/diff.js';
import { TelformError } from '../../src/util/errors.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifest/load.js';
import type { Kind } from '../../src/resources/kind.js';
import type { LiveContext, LiveObject } from '../../src/resources/live-side.js';
import { InstantClock } from '../support/clock.js';
import { clientFor } from '../support/emulator.js';
import { freshAccount, rawRequest, type TendlcClient } from '../emulator/tendlc-client.js';
import { liveContext } from '../../src/resources/live-side.js';

/**
 * Helpers of the Brand and Campaign live-side tests: a fresh emulator account with an API client
 * (retries never wait: an instant clock), fault switches through the admin route, the request log,
 * and the comparison of a live object with the validated manifest spec of the same object.
 */

export interface LiveAccount {
  account: TendlcClient;
  client: ApiClient;
  context: LiveContext;
}

export async function liveAccount(emulator: RunningEmulator, clock: Clock = new InstantClock()): Promise<LiveAccount> {
  const account = await freshAccount(emulator);
  const client = clientFor(emulator, {
    credentials: { authId: account.authId, authToken: account.authToken },
    clock,
    random: () => 0.5,
  });
  return {
    account,
    client,
    // A fresh view each time: these tests read the account again after changing it, as a new run would.
    get context() {
      return liveContext(client);
    },
  };
}

/** Sets faults, latency or rate limit (`{faults: "lost=1,methods=POST,seed=1"}`); `null` turns all off. */
export async function setFaults(emulator: RunningEmulator, settings: Record<string, unknown> | null): Promise<void> {
  const reply =
    settings === null
      ? await rawRequest(emulator, 'DELETE', '/__emulator/faults/')
      : await rawRequest(emulator, 'POST', '/__emulator/faults/', settings);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

export interface LoggedRequest {
  method: string;
  path: string;
  status: number | null;
  fault?: string;
}

/** The account's API requests as the emulator logged them (paths relative to the account base). */
export async function requestLog(account: TendlcClient): Promise<LoggedRequest[]> {
  const reply = await rawRequest(
    account.emulator,
    'GET',
    `/__emulator/requests/?account=${account.authId}&type=request`,
  );
  expect(reply.status).toBe(200);
  const entries = reply.body.requests as Array<Record<string, unknown>>;
  return entries.map((entry) => ({
    method: String(entry.method),
    path: String(entry.path).replace(account.base, '').replace(/\?.*$/, ''),
    status: typeof entry.status === 'number' ? entry.status : null,
    ...(typeof entry.fault === 'string' ? { fault: entry.fault } : {}),
  }));
}

/** The billing ledger's items for the account. */
export async function billingItems(account: TendlcClient): Promise<Array<Record<string, unknown>>> {
  const reply = await account.billing();
  expect(reply.status).toBe(200);
  return reply.body.items as Array<Record<string, unknown>>;
}

/** Loads one manifest document (YAML text) and returns the validated spec of its one resource. */
export async function manifestSpec(yaml: string): Promise<Record<string, unknown>> {
  const directory = await mkdtemp(join(tmpdir(), 'telform-10dlc-'));
  try {
    await writeFile(join(directory, 'manifest.yaml'), yaml);
    const result = await loadManifests(['manifest.yaml'], { cwd: directory });
    expect(result.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(result.model.resources).toHaveLength(1);
    return (result.model.resources[0] as { spec: Record<string, unknown> }).spec;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * The diff the planner would compute between a live object and a manifest spec: create-only inputs
 * the API does not return are taken from the manifest, as the planner does without a ledger.
 */
export function diffWithManifest(kind: Kind, live: LiveObject, desired: Record<string, unknown>): SpecDiff {
  if (!kind.live) throw new Error(`${kind.name} has no live side`);
  const before: Record<string, unknown> = { ...live.spec };
  for (const field of kind.live.fields.unreadable) {
    if (desired[field] === undefined) delete before[field];
    else before[field] = desired[field];
  }
  return diffSpecs(before, desired, { setFields: kind.setFields, secretFields: Object.keys(kind.secrets) });
}

/**
 * Runs `step` again after a failure the way the next `apply` would (each run re-reads and plans
 * afresh), at most `rounds` times: under heavy faults a single request may exhaust its bounded
 * retries, which must leave nothing half-done behind. Returns the result and the failures seen.
 */
export async function asNextApplyWould<T>(
  step: () => Promise<T>,
  rounds = 10,
): Promise<{ value: T; failures: string[] }> {
  const failures: string[] = [];
  for (let round = 1; round <= rounds; round += 1) {
    try {
      return { value: await step(), failures };
    } catch (error) {
      if (!(error instanceof TelformError)) throw error;
      failures.push(error.code);
    }
  }
  throw new Error(`did not converge in ${rounds} rounds: ${failures.join(', ')}`);
}
