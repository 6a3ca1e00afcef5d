// Every producer of a plan × every gate (docs/state-and-safety.md, one judgement): whatever made the
// plan — apply -f, --target, --exclude, --destroy, a scoped state, a saved plan, a rehearsed saved
// plan, revert, --accounts, waves, telform test, serve --apply safe — a change a gate refuses is
// refused (serve holds it), with nothing written to the account. Each gate has its own account
// holding what its refusal needs (the baseline); a refused run leaves it as it was, so every producer
// is tried on the same baseline. A cell a producer cannot make says why.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { teaBrandAndCampaign } from './examples.js';
import { advanceClock, cleanEnv, runCli, type CliRun } from './cli.js';
import { startServeCli } from './serve-harness.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const doc = (kind: string, name: string, spec: Record<string, unknown>, metadata: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name, ...metadata }, spec });
const acl = (name: string, ip: string, metadata: Record<string, unknown> = {}) =>
  doc('TrunkIpAcl', name, { ip_addresses: [ip] }, metadata);
const bystander = acl('bystander', '192.0.2.200');
const brandOnly =
  teaBrandAndCampaign({ brand: 'tea', campaign: 'tea-news' }, 'Tea News', 'x').split('\n---\n')[0] ?? '';
const brandAndCampaign = teaBrandAndCampaign(
  { brand: 'tea', campaign: 'tea-news' },
  'Tea News',
  'Fabrikam Tea: your order 882 was delivered. Reply STOP to opt out.',
);
// The registry declines a campaign whose alias says so: only a FAILED campaign may be updated.
const declinedCampaign = teaBrandAndCampaign(
  { brand: 'tea', campaign: 'tea-news' },
  'please decline',
  'Fabrikam Tea: your order 882 was delivered. Reply STOP to opt out.',
);
const updatedCampaign = teaBrandAndCampaign(
  { brand: 'tea', campaign: 'tea-news' },
  'please decline',
  'Fabrikam Tea: your order 883 is on its way. Reply STOP to opt out.',
);
const lintedCampaign = teaBrandAndCampaign(
  { brand: 'tea', campaign: 'tea-news' },
  'Tea News',
  'Your order 882 was delivered. Reply STOP to opt out.',
);
const uri = doc('OriginationUri', 'pbx', { uri: 'sip:pbx.example.com:5060' });
const trunk = doc('Trunk', 'pbx-in', { trunk_direction: 'inbound', primary_uri_uuid: { ref: 'pbx' } });
const denyForbidden = `apiVersion: telform/v1
kind: Policy
metadata: { name: gates }
rules:
  - id: no-forbidden-acls
    message: an ACL named forbidden-… may not be created, changed or deleted
    match: change.kind == "TrunkIpAcl" && change.action != "noop"
    # forbidden-old is the baseline the account held before the rule (a test applies it under the rule).
    expression: '!change.name.startsWith("forbidden") || (change.name == "forbidden-old" && change.action == "create")'
`;

type Producer =
  | 'apply -f'
  | '--target'
  | '--exclude'
  | '--destroy'
  | 'scoped state'
  | 'saved plan'
  | 'rehearsed saved plan'
  | 'revert'
  | '--accounts'
  | 'waves'
  | 'telform test'
  | 'serve --apply safe';

interface Gate {
  name: string;
  /** Applied first, with `baselineFlags`; then `after` is what every producer tries. */
  before: string[];
  baselineFlags?: string[];
  after: string[];
  /** The change the gate refuses (for --target). */
  address: string;
  /** Text of the refusal, in the output of every producer that refuses it. */
  refusal: RegExp;
  /** Approvals every producer passes, so that only this gate refuses. */
  flags?: string[];
  /** The scope a scoped state claims for this gate's objects. */
  scope: string;
  policy?: boolean;
  /** Producers that cannot make this gate's change, and why. */
  notApplicable: Partial<Record<Producer, string>>;
  /**
   * How a revert makes the refused change: the apply to revert; with `forced`, on the scoped account
   * (after its own cell), `after` is applied once with these approvals and that apply is reverted.
   */
  revert?: { seq: number; forced?: string[] };
}

const noRevert = 'a revert puts back what the account held before an apply; ';
const gates: Gate[] = [
  {
    name: 'protect',
    before: [acl('guarded', '192.0.2.10', { protect: true }), bystander],
    after: [bystander],
    address: 'TrunkIpAcl/guarded',
    refusal: /TrunkIpAcl\/guarded is protected/,
    scope: 'TrunkIpAcl',
    notApplicable: {},
    revert: { seq: 1 },
  },
  {
    name: 'irreversible',
    before: [brandAndCampaign, bystander],
    baselineFlags: ['--max-cost', '15', '--wait', '1m'],
    after: [brandOnly, bystander],
    address: 'Campaign/tea-news',
    refusal: /Campaign\/tea-news would be deleted, which cannot be undone/,
    // The campaign is the only one: its delete is also a mass delete, approved so that only this gate refuses.
    flags: ['--force-deletes'],
    scope: 'Brand,Campaign,TrunkIpAcl',
    notApplicable: {},
    revert: { seq: 1 },
  },
  {
    // A campaign's update is a new vetting review, billed 15 USD.
    name: 'cost',
    before: [declinedCampaign, bystander],
    baselineFlags: ['--wait', '1m'],
    after: [updatedCampaign, bystander],
    address: 'Campaign/tea-news',
    refusal: /the plan costs 15 USD/,
    scope: 'Brand,Campaign,TrunkIpAcl',
    notApplicable: { '--destroy': 'a teardown only deletes, and a delete costs nothing' },
    // Apply #2 updates the campaign (approved); reverting it is another billed update.
    revert: { seq: 2, forced: ['--max-cost', '15'] },
  },
  {
    name: 'mass delete',
    before: [...Array.from({ length: 10 }, (_, index) => acl(`office-${index}`, `192.0.2.${index + 20}`)), bystander],
    after: [...Array.from({ length: 6 }, (_, index) => acl(`office-${index}`, `192.0.2.${index + 20}`)), bystander],
    address: 'TrunkIpAcl/office-9',
    refusal: /deletes or replaces 4 of the 11 managed TrunkIpAcl resources/,
    scope: 'TrunkIpAcl',
    notApplicable: {
      '--target': 'a target narrows the plan to what it names: one delete of 11 is not a mass delete',
      '--destroy':
        'a teardown is the reviewed intent to delete everything (the gate guards against doing it by mistake)',
      revert: 'a revert reads no manifests: a wrong -f path, what the gate guards against, cannot happen',
    },
  },
  {
    name: 'blast radius',
    before: [
      uri,
      trunk,
      doc('PhoneNumber', 'support', { number: '+15125550101', app_id: { ref: 'pbx-in' } }),
      bystander,
    ],
    after: [uri, bystander],
    address: 'Trunk/pbx-in',
    refusal: /the plan breaks calls to 1 number and the approved maximum is 0/,
    // The trunk is the only one: its delete is also a mass delete, approved so that only this gate refuses.
    flags: ['--force-deletes'],
    scope: 'OriginationUri,Trunk,PhoneNumber,TrunkIpAcl',
    notApplicable: {},
    revert: { seq: 1 },
  },
  {
    name: 'create rule',
    before: [bystander],
    after: [bystander, doc('Trunk', 'broken', { trunk_direction: 'sideways' })],
    address: 'Trunk/broken',
    refusal: /must be one of inbound, outbound/,
    scope: 'Trunk,TrunkIpAcl',
    notApplicable: {
      '--destroy': 'a teardown creates nothing',
      revert: `${noRevert}it cannot hold a value the API refuses`,
    },
  },
  {
    name: 'lint',
    before: [brandOnly, bystander],
    baselineFlags: ['--wait', '1m'],
    after: [lintedCampaign, bystander],
    address: 'Campaign/tea-news',
    refusal: /would be submitted to the registry with lint error sample-names-brand/,
    flags: ['--max-cost', '15'],
    scope: 'Brand,Campaign,TrunkIpAcl',
    notApplicable: {
      '--destroy': 'a teardown submits nothing to the registry',
      revert: `${noRevert}it submits what the registry took`,
    },
  },
  {
    name: 'policy',
    before: [acl('forbidden-old', '192.0.2.30'), bystander],
    after: [acl('forbidden-old', '192.0.2.30'), acl('forbidden-new', '192.0.2.31'), bystander],
    address: 'TrunkIpAcl/forbidden-new',
    refusal: /violates policy no-forbidden-acls/,
    scope: 'TrunkIpAcl',
    policy: true,
    notApplicable: {},
    revert: { seq: 1 },
  },
  {
    name: 'ownership',
    before: [bystander],
    after: [bystander, acl('newcomer', '192.0.2.40')],
    address: 'TrunkIpAcl/newcomer',
    refusal: /is owned by|owns this account|another state/,
    scope: 'TrunkIpAcl',
    notApplicable: {
      revert: 'a revert reads the history of the state that applied: another state has no record to revert',
      'scoped state': 'the scoped state owns its own account here; this row is about a state that owns nothing of it',
      'telform test': 'a test runs on an account of its own emulator, which no other state owns',
    },
  },
];

const producers: Producer[] = [
  'apply -f',
  '--target',
  '--exclude',
  '--destroy',
  'scoped state',
  'saved plan',
  'rehearsed saved plan',
  'revert',
  '--accounts',
  'waves',
  'telform test',
  'serve --apply safe',
];

let emulator: RunningEmulator;
let root: string;
const accountOf = (index: number) => ({
  authId: `MAGATE${String(index).padStart(14, '0')}`,
  authToken: `gate-token-${String(index).padStart(22, '0')}`,
});

beforeAll(async () => {
  emulator = await startEmulator({
    accounts: gates.flatMap((_, index) => [accountOf(index * 2), accountOf(index * 2 + 1)]),
    registryDelayMs: 200,
  });
  root = await mkdtemp(path.join(tmpdir(), 'telform-e2e-gates-'));
});
afterAll(async () => {
  await emulator?.close();
  if (!process.env.KEEP_GATES) await rm(root, { recursive: true, force: true });
});

function writesTo(account: string, since: number): string[] {
  return emulator.runtime.log
    .list({ type: 'request' })
    .filter((entry) => entry.seq > since && entry.account === account && entry.method !== 'GET')
    .map((entry) => `${entry.method} ${entry.path}`);
}

function lastSeq(): number {
  return emulator.runtime.log.list({ type: 'request' }).at(-1)?.seq ?? 0;
}

interface Cell {
  folder: string;
  env: Record<string, string>;
  gate: Gate;
}

async function setUp(gate: Gate, index: number, scoped: boolean): Promise<Cell> {
  const account = accountOf(index * 2 + (scoped ? 1 : 0));
  const folder = path.join(root, `${gate.name.replace(/ /g, '-')}${scoped ? '-scoped' : ''}`);
  await mkdir(path.join(folder, 'before'), { recursive: true });
  await mkdir(path.join(folder, 'after'), { recursive: true });
  await writeFile(path.join(folder, 'before', 'gate.yaml'), gate.before.join('\n---\n'));
  await writeFile(path.join(folder, 'after', 'gate.yaml'), gate.after.join('\n---\n'));
  await writeFile(path.join(folder, 'policy.yaml'), denyForbidden);
  const env = cleanEnv({
    TELFORM_ENDPOINT: emulator.url,
    TELFORM_AUTH_ID: account.authId,
    TELFORM_AUTH_TOKEN: account.authToken,
    GATE_AUTH_ID: account.authId,
    GATE_AUTH_TOKEN: account.authToken,
  });
  const cell = { folder, env, gate };
  if (scoped) expect((await cli(cell, ['state', 'claim', '--scope', gate.scope, '--state', 's.json'])).code).toBe(0);
  const baseline = await cli(cell, [
    'apply',
    '-f',
    'before',
    '--auto-approve',
    '--state',
    's.json',
    ...(gate.baselineFlags ?? []),
  ]);
  expect(baseline.code, baseline.stdout + baseline.stderr).toBe(0);
  // The registry decides what the baseline submitted (a declined campaign is FAILED once it has).
  await advanceClock(emulator, 1_000);
  if (gate.name === 'ownership') {
    // Another state owns the account: every producer below runs with a state of its own (t.json).
    expect((await cli(cell, ['plan', '-f', 'after', '--state', 't.json'])).code).toBe(1);
  }
  return cell;
}

function cli(cell: Cell, args: string[]): Promise<CliRun> {
  return runCli(args, { cwd: cell.folder, env: cell.env });
}

/** The run of `producer` that makes the gate's change; its refusals are in `runs` (any one may refuse). */
async function produce(cell: Cell, producer: Producer): Promise<CliRun[]> {
  const { gate } = cell;
  const state = ['--state', gate.name === 'ownership' ? 't.json' : 's.json'];
  const extra = [...(gate.flags ?? []), ...(gate.policy ? ['--policy', 'policy.yaml'] : [])];
  const apply = (args: string[]) => cli(cell, ['apply', ...args, '--auto-approve', ...state, ...extra]);
  switch (producer) {
    case 'apply -f':
    case 'scoped state':
      return [await apply(['-f', 'after'])];
    case '--target':
      return [await apply(['-f', 'after', '--target', gate.address])];
    case '--exclude':
      return [await apply(['-f', 'after', '--exclude', 'TrunkIpAcl/bystander'])];
    case '--destroy':
      return [await apply(['--destroy'])];
    case 'saved plan':
    case 'rehearsed saved plan': {
      const out = producer === 'saved plan' ? 'saved.json' : 'rehearsed.json';
      const plan = await cli(cell, ['plan', '-f', 'after', '-o', out, ...state, ...extra]);
      if (plan.code !== 0) return [plan];
      const rehearse = producer === 'saved plan' ? [] : ['--rehearse'];
      return [plan, await cli(cell, ['apply', out, ...rehearse, '--auto-approve', ...state, ...extra])];
    }
    case 'revert': {
      return [await cli(cell, ['revert', String(gate.revert?.seq ?? 1), '--auto-approve', ...state, ...extra])];
    }
    case '--accounts':
    case 'waves': {
      const waves = producer === 'waves' ? ['--waves', '1,100%'] : [];
      const accounts = await writeAccounts(cell);
      return [await cli(cell, ['apply', '--accounts', accounts, '--auto-approve', ...waves, ...(gate.flags ?? [])])];
    }
    case 'telform test':
      return [await cli(cell, ['test', await writeTestFile(cell)])];
    case 'serve --apply safe':
      return [await serveHeld(cell)];
    default: {
      const never: never = producer;
      throw new Error(`unknown producer ${String(never)}`);
    }
  }
}

async function writeAccounts(cell: Cell): Promise<string> {
  const state = cell.gate.name === 'ownership' ? 't.json' : 's.json';
  const file = path.join(cell.folder, `accounts-${state}.yaml`);
  await writeFile(
    file,
    `defaults:\n  state: ${state}\naccounts:\n  - name: gate\n    manifests: after/\n    endpoint: ${emulator.url}\n    credentials: { auth_id_env: GATE_AUTH_ID, auth_token_env: GATE_AUTH_TOKEN }\n${cell.gate.policy ? '    policies: [policy.yaml]\n' : ''}`,
  );
  return path.basename(file);
}

/**
 * `serve --apply safe` over the accounts file: its first check plans the gate's change and holds it
 * (an `apply_held` event with the reasons; for an account its state may not write, an `applied` event
 * that could not start), as a run of the CLI for the assertions.
 */
async function serveHeld(cell: Cell): Promise<CliRun> {
  const accounts = await writeAccounts(cell);
  const serve = await startServeCli(
    ['--accounts', accounts, '--listen', '127.0.0.1:0', '--interval', '1h', '--apply', 'safe'],
    { cwd: cell.folder, env: cell.env },
  );
  try {
    const held = await serve.waitForEvent(
      (event) =>
        event.account === 'gate' &&
        (event.type === 'apply_held' || (event.type === 'applied' && event.failed === true)),
      { timeoutMs: 60_000 },
    );
    // Held: the reasons. An account the state may not write: an apply that could not start, and its errors.
    const said = held.type === 'apply_held' ? held.reasons : held.errors;
    const reasons = Array.isArray(said) ? said.join('\n') : JSON.stringify(held);
    return { code: 1, stdout: reasons, stderr: '' };
  } finally {
    await serve.stop('SIGTERM');
  }
}

/** A test file: the baseline applied on the test's own emulator, then the gate's change refused. */
async function writeTestFile(cell: Cell): Promise<string> {
  const { gate } = cell;
  const maxCost = (flags: string[] = []) => {
    const at = flags.indexOf('--max-cost');
    return at >= 0 ? Number(flags[at + 1]) : undefined;
  };
  const baselineCost = maxCost(gate.baselineFlags);
  const afterCost = maxCost(gate.flags);
  const registers = gate.before.some((text) => text.includes('kind: Brand'));
  const steps = [
    `      - apply: { manifests: [before/]${baselineCost === undefined ? '' : `, max_cost: ${baselineCost}`} }\n        expect_converged: false`,
    ...(registers
      ? [
          '      - advance: 2h',
          `      - apply: { manifests: [before/]${baselineCost === undefined ? '' : `, max_cost: ${baselineCost}`} }`,
          // The campaign, submitted once its brand was approved, is decided in turn.
          '      - advance: 2h',
        ]
      : []),
    `      - apply: { manifests: [after/]${afterCost === undefined ? '' : `, max_cost: ${afterCost}`} }\n        expect_error: true\n        assert: error.contains(${JSON.stringify(gate.refusal.source.replace(/\\/g, ''))})`,
  ];
  const file = 'gate.tftest.yaml';
  await writeFile(
    path.join(cell.folder, file),
    `apiVersion: telform/v1\nkind: Test\nmanifests: [before/]\n${gate.policy ? 'policies: [policy.yaml]\n' : ''}tests:\n  - name: ${gate.name}\n    steps:\n${steps.join('\n')}\n`,
  );
  return file;
}

describe('every producer of a plan × every gate: refused, nothing written', () => {
  gates.forEach((gate, index) => {
    describe(gate.name, () => {
      let cell: Cell;
      let scoped: Cell;
      beforeAll(async () => {
        cell = await setUp(gate, index, false);
        scoped = await setUp(gate, index, true);
      }, 120_000);

      for (const producer of producers) {
        const why = gate.notApplicable[producer];
        if (why) {
          it.skip(`${producer}: not applicable: ${why}`, () => undefined);
          continue;
        }
        it(`${producer} refuses`, async () => {
          const onScoped = producer === 'scoped state' || (producer === 'revert' && gate.revert?.forced);
          const target = onScoped ? scoped : cell;
          if (producer === 'revert' && gate.revert?.forced) {
            const forced = ['apply', '-f', 'after', '--auto-approve', '--state', 's.json', ...gate.revert.forced];
            const applied = await cli(target, forced);
            expect(applied.code, applied.stdout + applied.stderr).toBe(0);
          }
          const since = lastSeq();
          const runs = await produce(target, producer);
          const account = target.env.TELFORM_AUTH_ID ?? '';
          const last = runs.at(-1) as CliRun;
          const output = runs.map((run) => run.stdout + run.stderr).join('\n');
          if (producer === 'telform test') {
            // The test passes only if its last step was refused with the gate's message.
            expect(output).toMatch(/passed/);
            expect(last.code, output).toBe(0);
            return;
          }
          expect(output).toMatch(gate.refusal);
          expect(last.code, output).toBe(1);
          expect(writesTo(account, since)).toEqual([]);
        }, 120_000);
      }
    });
  });
});
