// Test support: an API client of an in-process emulator, and the engine (plan, then apply) driven
// through it with the SIP and trunking kinds as `telform apply` would, for the tests of the client
// under faults, of apply and of the live sides.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import type { Clock } from '../../src/util/clock.js';
import { emulatorClock } from './clock.js';
import { loadDesired, type DesiredSet } from '../../src/manifest/desired.js';
import { applyPlan, type ApplyResult } from '../../src/engine/apply.js';
import { toPlannerKind, kindsByName } from '../../src/engine/kinds.js';
import { SecretFingerprinter } from '../../src/state/ledger.js';
import type { PlannerKind } from '../../src/engine/model.js';
import type { Plan } from '../../src/engine/plan-types.js';
import { preparePlan, type Prepared } from '../../src/engine/prepare.js';
import { FileBackend } from '../../src/state/backends/file.js';
import { LedgerStore } from '../../src/state/ledger-store.js';
import { defaultAccount, type RunningEmulator } from '../../src/emulator/index.js';
import { catalog } from '../../src/resources/index.js';
import { liveContext } from '../../src/resources/live-side.js';

/**
 * A client of `emulator` as its default account (`credentials` to be another), whose backoff and
 * `Retry-After` sleeps move the emulator's clock (`clock` to use another); its limiter is the
 * client's default, on that clock.
 */
export function clientFor(emulator: RunningEmulator, options: Partial<ApiClientOptions> = {}): ApiClient {
  return new ApiClient({
    baseUrl: emulator.url,
    credentials: { authId: defaultAccount.authId, authToken: defaultAccount.authToken },
    clock: emulatorClock(emulator),
    ...options,
  });
}

/** The kinds of this issue (SIP auth, trunking, application SIP auth) as the planner sees them. */
export const coreKindNames = [
  'SipCredential',
  'SipIpAcl',
  'TrunkCredential',
  'TrunkIpAcl',
  'OriginationUri',
  'Trunk',
  'ApplicationSipAuth',
];

export function coreKinds(): PlannerKind[] {
  return catalog.kinds.filter((kind) => coreKindNames.includes(kind.name)).map(toPlannerKind);
}

export interface Manifest {
  kind: string;
  name: string;
  spec: Record<string, unknown>;
}

/** Writes manifests to a fresh folder and loads them as `telform apply -f` does. */
export async function desiredFrom(manifests: readonly Manifest[], env: Record<string, string>): Promise<DesiredSet> {
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-desired-'));
  try {
    const text = manifests
      .map((manifest) =>
        stringify({
          apiVersion: 'telform/v1',
          kind: manifest.kind,
          metadata: { name: manifest.name },
          spec: manifest.spec,
        }),
      )
      .join('---\n');
    await writeFile(path.join(folder, 'resources.yaml'), text);
    return await loadDesired([folder], { cwd: folder, env, report: () => undefined });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export interface Round {
  plan?: Plan;
  result?: ApplyResult;
  error?: unknown;
}

export interface Convergence {
  /** Rounds run, the last being the one that found nothing to do. */
  rounds: Round[];
  /** Every failure seen on the way: failed plans and failed changes' messages. */
  failures: string[];
}

/** What one engine run works with: the client, the ledger, the manifests and the kinds. */
export interface EngineRun {
  client: ApiClient;
  store: LedgerStore;
  desired: DesiredSet;
  kinds: PlannerKind[];
}

/** Plans as `telform apply` does before it applies (deletes and an empty manifest set approved). */
export function planRun(run: EngineRun): Promise<Prepared> {
  return preparePlan({
    kinds: kindsByName(run.kinds),
    desired: run.desired.resources,
    live: liveContext(run.client),
    store: run.store,
    fingerprinter: new SecretFingerprinter(defaultAccount.authToken),
    resolveSecrets: run.desired.resolveSecrets,
    approvals: {
      allow_irreversible: [],
      max_cost_usd: null,
      force_deletes: true,
      allow_empty: true,
      prune_unmanaged: [],
    },
    endpoint: 'test',
    account: defaultAccount.authId,
    now: new Date(),
  });
}

/** Applies a plan of `planRun`, with the account as that plan read it. */
export function applyRun(
  run: EngineRun,
  prepared: Prepared,
  options: { parallelism: number; clock: Clock },
): Promise<ApplyResult> {
  return applyPlan(
    {
      plan: prepared.plan,
      kinds: kindsByName(run.kinds),
      desired: new Map(run.desired.resources.map((resource) => [resource.address, resource])),
      store: run.store,
      live: liveContext(run.client),
      fingerprinter: new SecretFingerprinter(defaultAccount.authToken),
      resolveSecrets: run.desired.resolveSecrets,
      read: prepared.live,
    },
    { parallelism: options.parallelism, waitMs: 0, clock: options.clock },
  );
}

/**
 * Plans and applies until a plan has nothing to do, as a scheduled `telform apply` converges:
 * a round whose plan or changes fail under faults is followed by another. Gives up after
 * `maxRounds`.
 */
export async function converge(
  client: ApiClient,
  stateFile: string,
  desired: DesiredSet,
  options: { maxRounds: number; clock: Clock },
): Promise<Convergence> {
  const kinds = coreKinds();
  const rounds: Round[] = [];
  const failures: string[] = [];
  for (let index = 0; index < options.maxRounds; index += 1) {
    const round: Round = {};
    rounds.push(round);
    const store = await LedgerStore.open(new FileBackend(stateFile), {
      binding: { endpoint: 'test', account: defaultAccount.authId },
      lock: true,
    });
    const run: EngineRun = { client, store, desired, kinds };
    try {
      const prepared = await planRun(run);
      round.plan = prepared.plan;
      if (prepared.plan.changes.every((change) => change.action === 'noop')) return { rounds, failures };
      round.result = await applyRun(run, prepared, { parallelism: 8, clock: options.clock });
      for (const outcome of round.result.outcomes.values())
        if (outcome.status === 'failed') failures.push(outcome.error);
    } catch (error) {
      round.error = error;
      failures.push(error instanceof Error ? error.message : String(error));
    } finally {
      await store.close();
    }
  }
  throw new Error(`did not converge in ${options.maxRounds} rounds; failures:\n${failures.join('\n')}`);
}
