import { describe, expect, it } from 'vitest';
import type { PlannedChange } from '../../src/engine/plan-types.js';
import { StepRunner, type ChangeOutcome, type Step } from '../../src/engine/step-runner.js';
import { change as plannedChange } from '../support/plan.js';

/** The scheduling of apply's steps, with steps that only record when they run. */

function change(
  address: string,
  action: PlannedChange['action'],
  dependsOn: string[] = [],
  extra: Partial<PlannedChange> = {},
): PlannedChange {
  return plannedChange({ address, action, depends_on: dependsOn, ...extra });
}

function main(planned: PlannedChange, weight = 1): Step {
  return { change: planned, part: 'main', after: planned.depends_on, weight };
}

interface Run {
  order: string[];
  outcomes: Map<string, ChangeOutcome>;
  finished: string[];
  mostAtOnce: number;
}

/** Runs `steps`; each takes a few turns of the event loop, and `fail` says which fail (or are left pending). */
async function run(
  steps: Step[],
  options: { parallelism?: number; fail?: Record<string, ChangeOutcome>; outcomes?: Map<string, ChangeOutcome> } = {},
): Promise<Run> {
  const order: string[] = [];
  const finished: string[] = [];
  const outcomes = options.outcomes ?? new Map<string, ChangeOutcome>();
  let running = 0;
  let mostAtOnce = 0;
  const runner = new StepRunner(steps, outcomes, {
    parallelism: options.parallelism ?? 8,
    execute: async (step) => {
      const key = step.part === 'main' ? step.change.address : `${step.change.address}#delete`;
      order.push(key);
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      running -= 1;
      const failure = options.fail?.[key];
      if (failure?.status === 'failed' && failure.error === 'throw') throw new Error('the API answered 500');
      return failure ?? { status: 'done' };
    },
    finished: (step, outcome) =>
      finished.push(`${step.change.address}${step.part === 'main' ? '' : '#delete'} ${outcome.status}`),
  });
  await runner.run();
  return { order, outcomes, finished, mostAtOnce };
}

describe('StepRunner', () => {
  it('starts first, of the steps ready at once, those heading the longest chain of work', async () => {
    const steps = [
      main(change('SipCredential/alone', 'create')),
      main(change('TrunkIpAcl/office', 'create')),
      main(change('Trunk/pbx', 'create', ['TrunkIpAcl/office'])),
      main(change('PhoneNumber/1202', 'update', ['Trunk/pbx'])),
      main(change('Brand/acme', 'create')),
      main(change('Campaign/promo', 'wait', ['Brand/acme']), 4),
    ];
    const { order } = await run(steps, { parallelism: 1 });
    // Chains of requests: the brand (1) then its campaign (4: polls, then registers) = 5; the ACL,
    // trunk and number = 3; the number and the lone credential (1 each) in plan order.
    expect(order).toEqual([
      'Brand/acme',
      'Campaign/promo',
      'TrunkIpAcl/office',
      'Trunk/pbx',
      'SipCredential/alone',
      'PhoneNumber/1202',
    ]);
  });

  it('keeps plan order among steps of equal chains, and never runs more than the parallelism at once', async () => {
    const steps = Array.from({ length: 20 }, (_, index) =>
      main(change(`TrunkIpAcl/acl-${String(index).padStart(2, '0')}`, 'create')),
    );
    const { order, mostAtOnce } = await run(steps, { parallelism: 3 });
    expect(order).toEqual(steps.map((step) => step.change.address));
    expect(mostAtOnce).toBe(3);
  });

  it('skips what depends on a failure, leaves pending what waits on a pending change, and runs the rest', async () => {
    const steps = [
      main(change('TrunkIpAcl/bad', 'create')),
      main(change('Trunk/on-bad', 'create', ['TrunkIpAcl/bad'])),
      main(change('PhoneNumber/on-trunk', 'update', ['Trunk/on-bad'])),
      main(change('Campaign/waiting', 'wait')),
      main(change('PhoneNumber/on-campaign', 'update', ['Campaign/waiting'])),
      main(change('Trunk/on-blocked', 'create', ['Brand/blocked'])),
      main(change('TrunkIpAcl/good', 'create')),
      main(change('Trunk/on-good', 'create', ['TrunkIpAcl/good'])),
    ];
    const outcomes = new Map<string, ChangeOutcome>([['Brand/blocked', { status: 'blocked', reason: 'immutable' }]]);
    const result = await run(steps, {
      outcomes,
      fail: {
        'TrunkIpAcl/bad': { status: 'failed', error: 'throw' },
        'Campaign/waiting': { status: 'pending', reason: 'waits for the registry' },
      },
    });
    expect(Object.fromEntries(result.outcomes)).toEqual({
      'Brand/blocked': { status: 'blocked', reason: 'immutable' },
      'TrunkIpAcl/bad': { status: 'failed', error: 'the API answered 500' },
      'Trunk/on-bad': { status: 'skipped', reason: 'TrunkIpAcl/bad did not complete' },
      'PhoneNumber/on-trunk': { status: 'skipped', reason: 'Trunk/on-bad did not complete' },
      'Campaign/waiting': { status: 'pending', reason: 'waits for the registry' },
      'PhoneNumber/on-campaign': { status: 'pending', reason: 'waits for Campaign/waiting' },
      'Trunk/on-blocked': { status: 'skipped', reason: 'Brand/blocked did not complete' },
      'TrunkIpAcl/good': { status: 'done' },
      'Trunk/on-good': { status: 'done' },
    });
    expect(result.order.sort()).toEqual(['Campaign/waiting', 'Trunk/on-good', 'TrunkIpAcl/bad', 'TrunkIpAcl/good']);
  });

  it('deletes only once every create, update and replace has settled, and a replaced object after what released it', async () => {
    const replace = change('OriginationUri/primary', 'replace', [], {
      replace_strategy: 'create_before_delete',
      delete_after: ['Trunk/pbx'],
    });
    const steps = [
      main(replace),
      main(change('Trunk/pbx', 'update', ['OriginationUri/primary'])),
      main(change('TrunkIpAcl/old', 'delete')),
      main(change('Trunk/old', 'delete')),
      main(change('TrunkCredential/old', 'delete', ['Trunk/old'])),
      {
        change: replace,
        part: 'replace-delete',
        after: ['OriginationUri/primary', 'Trunk/pbx'],
        weight: 1,
      } satisfies Step,
    ];
    const { order, finished } = await run(steps);
    const at = (key: string): number => order.indexOf(key);
    const lastMain = Math.max(at('OriginationUri/primary'), at('Trunk/pbx'));
    for (const key of ['TrunkIpAcl/old', 'Trunk/old', 'TrunkCredential/old', 'OriginationUri/primary#delete'])
      expect(at(key)).toBeGreaterThan(lastMain);
    expect(at('TrunkCredential/old')).toBeGreaterThan(at('Trunk/old'));
    expect(finished.sort()).toEqual([
      'OriginationUri/primary done',
      'OriginationUri/primary#delete done',
      'Trunk/old done',
      'Trunk/pbx done',
      'TrunkCredential/old done',
      'TrunkIpAcl/old done',
    ]);
  });

  it('skips steps whose dependencies can never settle instead of waiting forever', async () => {
    const steps = [
      main(change('Trunk/a', 'create', ['Trunk/b'])),
      main(change('Trunk/b', 'create', ['Trunk/a'])),
      main(change('Trunk/c', 'create', ['Trunk/b'])),
      main(change('Trunk/free', 'create')),
    ];
    const { outcomes } = await run(steps);
    expect(Object.fromEntries(outcomes)).toEqual({
      'Trunk/free': { status: 'done' },
      'Trunk/a': { status: 'skipped', reason: 'its dependencies could not be ordered' },
      'Trunk/b': { status: 'skipped', reason: 'its dependencies could not be ordered' },
      'Trunk/c': { status: 'skipped', reason: 'its dependencies could not be ordered' },
    });
  });

  it('runs a chain of 20,000 dependent steps in order', async () => {
    const steps = Array.from({ length: 20_000 }, (_, index) =>
      main(change(`Trunk/t${index}`, 'create', index === 0 ? [] : [`Trunk/t${index - 1}`])),
    );
    const order: string[] = [];
    const runner = new StepRunner(steps, new Map(), {
      parallelism: 8,
      execute: async (step) => {
        order.push(step.change.address);
        return { status: 'done' };
      },
    });
    await runner.run();
    expect(order).toEqual(steps.map((step) => step.change.address));
  });
});
