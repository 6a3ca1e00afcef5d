import { describe, expect, it } from 'vitest';
import type { LogFields } from '../../src/serve/logger.js';
import { ServeMetrics } from '../../src/serve/metrics.js';
import type { AccountCheck, PlanLine, ServeEvent } from '../../src/serve/model.js';
import { ServeService, type AccountWorker, type SafeApplyOutcome } from '../../src/serve/service.js';
import { ManualClock, settle } from '../support/clock.js';

/**
 * `--apply safe` with a plan the API refuses (issue 33 item 10): the failure is announced once with
 * the API's message, the same plan is not sent again every interval but after a doubling back-off,
 * and a changed plan is tried at once.
 */

const minute = 60_000;

function pendingCheck(plan: PlanLine[]): AccountCheck {
  return {
    status: 'pending',
    drifted: [],
    pending: plan.map((line) => line.address),
    notes: [],
    registry: [],
    plan,
    requests: 1,
    rateLimited: 0,
  };
}

describe('serve --apply safe and a plan whose apply fails', () => {
  it('announces the failure once with the API message, backs off while the plan is the same, and retries at once when it changes', async () => {
    const clock = new ClockWithStart();
    let plan: PlanLine[] = [
      { address: 'Brand/acme', action: 'create', drifted: false, reasons: ['not in the account'] },
    ];
    const applies: number[] = [];
    const worker: AccountWorker = {
      name: 'acme',
      authToken: 'token',
      check: async () => pendingCheck(plan),
      readRegistry: async () => ({ requests: 0, rateLimited: 0 }),
      applySafe: async (): Promise<SafeApplyOutcome> => {
        applies.push(clock.now() - clock.start);
        return {
          result: 'applied',
          changes: plan.map((line) => line.address),
          summary:
            'Apply complete: 0 created, 0 updated, 0 replaced, 0 deleted, 0 adopted. Pending: 0. Blocked: 0. Failed: 1.',
          failed: true,
          failures: ['Brand/acme: the API answered 400 to POST /10dlc/Brand/: brand_alias is already registered'],
        };
      },
      close: async () => undefined,
    };
    const events: ServeEvent[] = [];
    const logs: Array<{ message: string; fields: LogFields }> = [];
    const logger = {
      log: (_level: string, message: string, fields: LogFields = {}) => void logs.push({ message, fields }),
    };
    const service = new ServeService([worker], {
      intervalMs: minute,
      jitter: 0,
      concurrency: 1,
      apply: 'safe',
      clock,
      logger,
      metrics: new ServeMetrics({ processMetrics: false }),
      sinks: [(event) => events.push(event)],
    });
    service.start();
    await settle();
    // Twenty intervals of the same plan: tried at start, then 2, 4 and 8 intervals after each failure.
    for (let index = 0; index < 20; index += 1) await clock.advance(minute);
    expect(applies).toEqual([0, 2 * minute, 6 * minute, 14 * minute]);
    const failed = events.filter((event) => event.type === 'applied');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      failed: true,
      errors: ['Brand/acme: the API answered 400 to POST /10dlc/Brand/: brand_alias is already registered'],
    });
    expect(logs.filter((line) => line.message === 'apply failed again').map((line) => line.fields.failures)).toEqual([
      2, 3, 4,
    ]);

    // The plan changes (the manifest was fixed): tried at the next look, and announced.
    plan = [
      {
        address: 'Brand/acme',
        action: 'create',
        drifted: false,
        reasons: ['not in the account', 'brand_alias changed'],
      },
    ];
    await clock.advance(minute);
    expect(applies).toHaveLength(5);
    expect(events.filter((event) => event.type === 'applied')).toHaveLength(2);
    await service.stop(1_000);
  });
});

class ClockWithStart extends ManualClock {
  readonly start = this.now();
}
