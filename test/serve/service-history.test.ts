import { describe, expect, it } from 'vitest';
import type { LogFields } from '../../src/serve/logger.js';
import { ServeMetrics } from '../../src/serve/metrics.js';
import type { AccountCheck } from '../../src/serve/model.js';
import { ServeService, type AccountWorker } from '../../src/serve/service.js';
import { ManualClock, settle } from '../support/clock.js';

/**
 * What serve hands to the account's history: each registry move it sees (not a first sighting), and
 * each change outside telform with the window its worker measured, said in the log as well.
 */

const minute = 60_000;

describe('serve and the history', () => {
  it('records registry moves and logs each change outside telform with the check that last saw it in sync', async () => {
    const clock = new ManualClock();
    const statuses = ['PROCESSING', 'PROCESSING', 'ACTIVE'];
    let look = 0;
    const moves: unknown[] = [];
    const check = async (): Promise<AccountCheck> => {
      const status = statuses[Math.min(look, statuses.length - 1)] as string;
      look += 1;
      const drifted = look === 2;
      return {
        status: drifted ? 'drifted' : 'in_sync',
        drifted: drifted ? ['Trunk/pbx-out'] : [],
        pending: [],
        notes: [],
        registry: [{ address: 'Brand/acme', kind: 'Brand', id: 'BACME01', status }],
        plan: [],
        requests: 1,
        rateLimited: 0,
        ...(drifted
          ? {
              windows: [
                { address: 'Trunk/pbx-out', since: '2026-11-20T10:20:00.000Z', seen_at: '2026-11-20T10:21:00.000Z' },
              ],
            }
          : {}),
      };
    };
    const worker: AccountWorker = {
      name: 'acme',
      authToken: 'token',
      check,
      readRegistry: async () => ({ requests: 0, rateLimited: 0 }),
      applySafe: async () => ({ result: 'nothing' }),
      recordRegistry: async (recorded) => void moves.push(...recorded),
      close: async () => undefined,
    };
    const logs: Array<{ message: string; fields: LogFields }> = [];
    const service = new ServeService([worker], {
      intervalMs: minute,
      jitter: 0,
      concurrency: 1,
      apply: 'never',
      clock,
      logger: { log: (_level: string, message: string, fields: LogFields = {}) => void logs.push({ message, fields }) },
      metrics: new ServeMetrics({ processMetrics: false }),
      sinks: [],
    });
    service.start();
    await settle();
    await clock.advance(minute);
    await clock.advance(minute);
    expect(moves).toEqual([{ address: 'Brand/acme', from: 'PROCESSING', status: 'ACTIVE' }]);
    expect(logs.filter((line) => line.message === 'changed outside telform').map((line) => line.fields)).toEqual([
      {
        account: 'acme',
        address: 'Trunk/pbx-out',
        in_sync_at: '2026-11-20T10:20:00.000Z',
        changed_before: '2026-11-20T10:21:00.000Z',
      },
    ]);
    await service.stop(1_000);
  });
});
