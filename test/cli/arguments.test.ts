import { describe, expect, it } from 'vitest';
import { parseApplyArguments, type ApplyFlags } from '../../src/cli/arguments/apply.js';
import { parseDriftArguments, type DriftFlags } from '../../src/cli/arguments/drift.js';
import { inputOrRefuse } from '../../src/cli/arguments/parsed.js';
import { parsePlanArguments, type PlanFlags } from '../../src/cli/arguments/plan.js';
import { parseServeArguments, type ServeFlags } from '../../src/cli/arguments/serve.js';
import { parseValidateArguments } from '../../src/cli/arguments/validate.js';
import { parseReportArguments } from '../../src/cli/arguments/report.js';
import { parseHistoryArguments } from '../../src/cli/arguments/history.js';
import { parseRevertArguments, type RevertFlags } from '../../src/cli/arguments/revert.js';

// The flag rules of each command, as pure functions: option values (as commander leaves them, with
// their defaults) and the flags the command line gave, in; the typed input or every problem, out.
const none = new Set<string>();
const accountsFlags = { only: [], accountParallelism: 4, value: [] };
const approvalFlags = {
  file: [],
  allowIrreversible: [],
  allowLint: [],
  policy: [],
  pruneUnmanaged: [],
  target: [],
  exclude: [],
};
const drift = (flags: Partial<DriftFlags>): DriftFlags => ({
  ...accountsFlags,
  file: [],
  format: 'text',
  accept: [],
  ...flags,
});
const plan = (flags: Partial<PlanFlags>): PlanFlags => ({
  ...accountsFlags,
  ...approvalFlags,
  format: 'text',
  ...flags,
});
const apply = (flags: Partial<ApplyFlags>): ApplyFlags => ({
  ...accountsFlags,
  ...approvalFlags,
  format: 'text',
  parallelism: 8,
  canary: [],
  autoApprove: true,
  ...flags,
});

describe('drift flags', () => {
  it("refuses --write with --accounts (it rewrites one account's manifests), never ignoring it", () => {
    expect(
      parseDriftArguments(drift({ accounts: 'accounts.yaml', write: true }), new Set(['accounts', 'write'])),
    ).toEqual({
      problems: ["--write rewrites one account's manifests: give either --write or --accounts"],
    });
  });

  it("chooses the mode: an accounts report, a write-back (with --accept), or one account's report", () => {
    expect(parseDriftArguments(drift({ accounts: 'a.yaml' }), none).input).toMatchObject({
      mode: 'accounts',
      accountsFile: 'a.yaml',
    });
    expect(parseDriftArguments(drift({ file: ['m/'], write: true, accept: ['Trunk/x'] }), none).input).toMatchObject({
      mode: 'write',
      paths: ['m/'],
      accept: ['Trunk/x'],
    });
    expect(parseDriftArguments(drift({ file: ['m/'], format: 'json' }), none).input).toMatchObject({
      mode: 'report',
      paths: ['m/'],
      format: 'json',
    });
  });

  it('reports every problem at once, one sentence each', () => {
    const parsed = parseDriftArguments(
      drift({ file: ['m/'], accept: ['Trunk/x'], shard: { index: 1, count: 2 }, format: 'json' }),
      new Set(['shard', 'accept', 'format']),
    );
    expect(parsed.problems).toEqual([
      '--shard works only with --accounts FILE; this drift runs the one account of -f',
      '--accept chooses what --write writes: give --write too',
    ]);
    expect(() => inputOrRefuse(parsed)).toThrow(
      '--shard works only with --accounts FILE; this drift runs the one account of -f; --accept chooses what --write writes: give --write too',
    );
    expect(
      parseDriftArguments(drift({ file: ['m/'], write: true, format: 'json' }), new Set(['write', 'format'])).problems,
    ).toEqual(['--write writes manifests and prints what it wrote: give either --write or --format']);
  });
});

describe('plan flags', () => {
  it('refuses the flags of --accounts without it, by the flag given', () => {
    for (const [attribute, flag] of [
      ['only', '--only'],
      ['accountParallelism', '--account-parallelism'],
      ['shard', '--shard'],
      ['runId', '--run-id'],
    ]) {
      expect(parsePlanArguments(plan({ file: ['m/'] }), new Set([attribute as string])).problems).toEqual([
        `${flag} works only with --accounts FILE; this plan runs the one account of -f`,
      ]);
    }
  });

  it("keeps one account's scope and values off an accounts run, and a teardown off the manifests", () => {
    expect(
      parsePlanArguments(plan({ accounts: 'a.yaml', target: ['Trunk/x'], values: 'v.yaml', file: ['m/'] }), none)
        .problems,
    ).toEqual([
      'give either --accounts FILE or -f manifests, not both',
      "--values and --value are for a single-account run; with --accounts, give values in the accounts file (defaults.values, or an account's values)",
      '--target is about the resources of one account: give either --target or --accounts',
    ]);
    expect(parsePlanArguments(plan({ destroy: true, file: ['m/'], target: ['Trunk/x'] }), none).problems).toEqual([
      '--destroy deletes everything the state manages and reads no manifests: give either -f or --destroy',
      '--destroy covers everything the state manages: leave out parts with --exclude, not --target',
    ]);
    expect(parsePlanArguments(plan({ accounts: 'a.yaml', out: 'plan.json' }), none).problems).toEqual([
      'a saved plan is for one account: give either -o FILE or --accounts',
    ]);
    expect(parsePlanArguments(plan({ file: ['m/'], out: 'plan.json' }), none).input).toMatchObject({ mode: 'one' });
  });
});

describe('apply flags', () => {
  it('applies a saved plan as it was planned: no manifests, values or scope beside it (policies give its approval rules)', () => {
    expect(
      parseApplyArguments(
        'plan.json',
        apply({ file: ['m/'], value: ['a=1'], policy: ['p.yaml'], exclude: ['Trunk/x'] }),
        none,
      ).problems,
    ).toEqual([
      'give either a saved plan file or -f manifests, not both',
      'plan.json holds the values it was planned with: give --values / --value to `telform plan`, not to the apply of a saved plan',
      'plan.json is applied as it was planned: give --exclude to `telform plan`, not to the apply of a saved plan',
    ]);
    expect(
      parseApplyArguments(undefined, apply({ file: ['m/'], approvals: 'a/', emergency: ' ' }), none).problems,
    ).toEqual([
      '--approvals names the signed approvals of a saved plan: give the plan file',
      '--emergency needs a reason, recorded in the history (e.g. --emergency "carrier outage, INC-4411")',
    ]);
    expect(parseApplyArguments('plan.json', apply({}), none).input).toMatchObject({
      mode: 'saved-plan',
      planFile: 'plan.json',
    });
    expect(parseApplyArguments('plan.json', apply({ accounts: 'a.yaml' }), none).problems).toEqual([
      'a saved plan is for one account: give either a plan file or --accounts',
    ]);
  });

  it('rolls out in waves over an accounts file only, and parses the waves', () => {
    expect(
      parseApplyArguments(undefined, apply({ accounts: 'a.yaml', waves: '1,10%,100%', canary: ['acme'] }), none).input,
    ).toMatchObject({
      mode: 'accounts',
      rollout: {
        waves: [{ count: 1 }, { percent: 10 }, { percent: 100 }],
        canary: ['acme'],
        soakMs: 0,
        resume: false,
        restart: false,
      },
    });
    expect(parseApplyArguments(undefined, apply({ file: ['m/'], waves: '1,50%' }), none).problems).toEqual([
      '--waves and --resume roll out over the accounts of an accounts file: give --accounts FILE',
      '--waves 1,50%: the last wave must be 100% (every account), e.g. 1,10%,100%',
    ]);
    expect(parseApplyArguments(undefined, apply({ file: ['m/'], soak: 60_000 }), none).problems).toEqual([
      '--canary, --soak and --restart are for a rollout in waves: give --waves too',
    ]);
    expect(
      parseApplyArguments(undefined, apply({ accounts: 'a.yaml', resume: true, waves: '100%', only: ['acme'] }), none)
        .problems,
    ).toEqual([
      '--resume continues the waves recorded when the rollout started: give --resume without --waves',
      '--resume continues the accounts recorded when the rollout started: give --resume without --only',
    ]);
    expect(parseApplyArguments(undefined, apply({ file: ['m/'], ignoreRollout: true }), none).problems).toEqual([
      '--ignore-rollout is for an apply over --accounts FILE',
    ]);
    expect(
      parseApplyArguments(undefined, apply({ accounts: 'a.yaml', ignoreRollout: true, resume: true }), none).problems,
    ).toEqual(['--ignore-rollout is for an apply of every account at once: give it without --waves or --resume']);
    expect(
      parseApplyArguments(undefined, apply({ accounts: 'a.yaml', waves: '100%', shard: { index: 1, count: 2 } }), none)
        .problems,
    ).toEqual(['--waves and --resume roll out over every account of one run: give them without --shard']);
  });

  it('needs manifests, a saved plan or --destroy, and prints one account as text or json', () => {
    expect(parseApplyArguments(undefined, apply({}), none).problems).toEqual([
      'no manifests given: pass -f PATH (repeatable), or a saved plan file',
    ]);
    expect(parseApplyArguments(undefined, apply({ destroy: true }), none).input).toMatchObject({ mode: 'manifests' });
    expect(parseApplyArguments(undefined, apply({ file: ['m/'], format: 'markdown' }), none).problems).toEqual([
      "--format markdown cannot render one account's apply result; choose text or json",
    ]);
    expect(parseApplyArguments(undefined, apply({ accounts: 'a.yaml', format: 'markdown' }), none).input).toMatchObject(
      { mode: 'accounts' },
    );
  });

  it('refuses, as not approved, the runs that cannot ask: --accounts or --format json without --auto-approve', () => {
    expect(parseApplyArguments(undefined, apply({ accounts: 'a.yaml', autoApprove: false }), none)).toEqual({
      problems: [
        'an apply over --accounts does not ask: pass --auto-approve (review with `telform plan --accounts` first)',
      ],
      code: 'not_approved',
    });
    expect(parseApplyArguments(undefined, apply({ file: ['m/'], format: 'json', autoApprove: false }), none)).toEqual({
      problems: [
        'apply --format json does not ask: pass --auto-approve (review with `telform plan` first), or apply a saved plan',
      ],
      code: 'not_approved',
    });
    expect(() =>
      inputOrRefuse(parseApplyArguments(undefined, apply({ file: ['m/'], format: 'json', autoApprove: false }), none)),
    ).toThrow(expect.objectContaining({ code: 'not_approved' }));
    // A saved plan was reviewed when it was made, and a text apply asks on a terminal.
    expect(parseApplyArguments('plan.json', apply({ format: 'json', autoApprove: false }), none).input).toMatchObject({
      mode: 'saved-plan',
    });
    expect(parseApplyArguments(undefined, apply({ file: ['m/'], autoApprove: false }), none).input).toMatchObject({
      mode: 'manifests',
    });
    // Any other problem is said first, as a wrong flag (the refusal would not have been reached).
    expect(
      parseApplyArguments(
        undefined,
        apply({ accounts: 'a.yaml', autoApprove: false, ignoreRollout: true, resume: true }),
        none,
      ),
    ).toEqual({
      problems: ['--ignore-rollout is for an apply of every account at once: give it without --waves or --resume'],
    });
  });
});

describe('revert flags', () => {
  const revert = (flags: Partial<RevertFlags>): RevertFlags => ({
    file: [],
    allowIrreversible: [],
    parallelism: 8,
    over: [],
    ...flags,
  });

  it('reads --over only when the revert is planned', () => {
    expect(parseRevertArguments(revert({ over: [3] })).input).toMatchObject({ mode: 'apply', flags: { over: [3] } });
    expect(parseRevertArguments(revert({ write: true, file: ['m/'], over: [3] })).problems).toEqual([
      '--over is read only when the revert is planned: --write writes what apply N changed, and a later change shows in the diff',
    ]);
  });

  it('applies, saves (-o) or writes into the manifests (--write -f), one of the three', () => {
    expect(parseRevertArguments(revert({ wait: 900_000 })).input).toMatchObject({ mode: 'apply', waitMs: 900_000 });
    expect(parseRevertArguments(revert({})).input).toMatchObject({ mode: 'apply', waitMs: 0 });
    expect(parseRevertArguments(revert({ out: 'r.json' })).input).toMatchObject({ mode: 'save', out: 'r.json' });
    expect(parseRevertArguments(revert({ write: true, file: ['m/'] })).input).toEqual({ mode: 'write', files: ['m/'] });
    expect(parseRevertArguments(revert({ write: true, out: 'r.json' })).problems).toEqual([
      'give either --write (into the manifests) or -o (a saved plan), not both',
      '--write needs the manifests to write into: pass -f PATH (repeatable)',
    ]);
    expect(parseRevertArguments(revert({ file: ['m/'] })).problems).toEqual([
      '-f is read only with --write: a revert is planned from the state and its history',
    ]);
  });

  it('waits for the registry only when it applies', () => {
    expect(parseRevertArguments(revert({ out: 'r.json', wait: 60_000 })).problems).toEqual([
      '--wait is read only when the revert is applied, not with -o; wait when applying it: telform apply r.json --wait DURATION',
    ]);
    expect(parseRevertArguments(revert({ write: true, file: ['m/'], wait: 60_000 })).problems).toEqual([
      '--wait is read only when the revert is applied, not with --write',
    ]);
  });
});

describe('validate and serve flags', () => {
  it('take -f or --accounts, not both and not neither', () => {
    expect(parseValidateArguments({ format: 'text', value: [] }).problems).toEqual([
      'no manifests given: pass -f PATH (repeatable), or --accounts FILE',
    ]);
    expect(parseValidateArguments({ format: 'text', value: [], file: ['m/'], accounts: 'a.yaml' }).problems).toEqual([
      'give either --accounts FILE or -f manifests, not both',
    ]);
    expect(parseValidateArguments({ format: 'json', value: [], accounts: 'a.yaml' }).input).toMatchObject({
      mode: 'accounts',
      accountsFile: 'a.yaml',
    });
    const serve = (flags: Partial<ServeFlags>): ServeFlags => ({
      file: [],
      only: [],
      policy: [],
      value: [],
      name: 'default',
      interval: 300_000,
      jitter: 0.1,
      accountParallelism: 4,
      parallelism: 8,
      apply: 'never',
      listen: { host: '127.0.0.1', port: 0 },
      drainTimeout: 30_000,
      checkExpiry: 120_000,
      applyExpiry: 3_600_000,
      callbackWindow: 5_000,
      ...flags,
    });
    expect(parseServeArguments(serve({})).problems).toEqual([
      'no manifests given: pass -f PATH (repeatable) or --accounts FILE',
    ]);
    expect(parseServeArguments(serve({ file: ['m/'], only: ['acme'] })).problems).toEqual([
      '--only and --shard choose accounts of --accounts FILE',
    ]);
    const withUser = parseServeArguments(
      serve({ file: ['m/'], notify: 'https://hook-user:s3cret-pass@hooks.example.com/telform' }),
    ).problems;
    expect(withUser).toEqual([
      '--notify must not carry a user or password in its URL (they would end up in logs): give the receiver a URL without them',
    ]);
    expect(parseServeArguments(serve({ file: ['m/'] })).input).toMatchObject({ mode: 'one', paths: ['m/'] });
  });
});

describe('--format: the report this run prints, in a format that renders it', () => {
  const accountsRefusal = (format: string) =>
    `--format ${format} cannot render an accounts report; choose text, json, markdown, github or gitlab`;

  it('refuses a graph of an accounts run by name, and renders its CI annotations', () => {
    for (const format of ['mermaid', 'dot'] as const) {
      expect(parsePlanArguments(plan({ accounts: 'a.yaml', format }), none).problems).toEqual([
        accountsRefusal(format),
      ]);
      expect(parseDriftArguments(drift({ accounts: 'a.yaml', format }), none).problems).toEqual([
        accountsRefusal(format),
      ]);
      expect(
        parseApplyArguments(undefined, apply({ accounts: 'a.yaml', format, autoApprove: true }), none).problems,
      ).toEqual([accountsRefusal(format)]);
      expect(parseReportArguments({ format }).problems).toEqual([accountsRefusal(format)]);
    }
    for (const format of ['github', 'gitlab'] as const) {
      expect(parsePlanArguments(plan({ accounts: 'a.yaml', format }), none).input).toMatchObject({ mode: 'accounts' });
      expect(parseDriftArguments(drift({ accounts: 'a.yaml', format }), none).input).toMatchObject({
        mode: 'accounts',
      });
      expect(parseReportArguments({ format }).input).toEqual({ format });
    }
  });

  it("keeps every format for one account's plan and drift", () => {
    for (const format of ['text', 'json', 'markdown', 'mermaid', 'dot', 'github', 'gitlab'] as const) {
      expect(parsePlanArguments(plan({ file: ['m/'], format }), none).input).toMatchObject({ mode: 'one' });
      expect(parseDriftArguments(drift({ file: ['m/'], format }), none).input).toMatchObject({
        mode: 'report',
        format,
      });
    }
  });

  it("refuses what a rehearsal, one account's apply, a validation or a history cannot be rendered as", () => {
    expect(parsePlanArguments(plan({ file: ['m/'], rehearse: true, format: 'github' }), none).problems).toEqual([
      '--format github cannot render a rehearsal; choose text or markdown',
    ]);
    expect(parsePlanArguments(plan({ accounts: 'a.yaml', rehearse: true }), none).problems).toEqual([
      "--rehearse rehearses one account's plan on a replica of it: give either --rehearse or --accounts",
    ]);
    expect(parseApplyArguments(undefined, apply({ file: ['m/'], format: 'gitlab' }), none).problems).toEqual([
      "--format gitlab cannot render one account's apply result; choose text or json",
    ]);
    expect(parseValidateArguments({ format: 'markdown', value: [], file: ['m/'] }).problems).toEqual([
      '--format markdown cannot render a validation report; choose text, json, github or gitlab',
    ]);
    expect(parseValidateArguments({ format: 'gitlab', value: [], accounts: 'a.yaml' }).input).toMatchObject({
      mode: 'accounts',
    });
    expect(parseHistoryArguments({ format: 'github', only: ['acme'] }).problems).toEqual([
      '--only works only with --accounts FILE',
      '--format github cannot render a history; choose text, json or markdown',
    ]);
    expect(parseHistoryArguments({ format: 'markdown', only: [] }).input).toEqual({ format: 'markdown', only: [] });
  });
});
