import { describe, expect, it } from 'vitest';
import { ApplyProgress } from '../../src/cli/progress.js';
import type { PlannedChange } from '../../src/engine/plan-types.js';
import { renderOutcome } from '../../src/render/apply.js';
import { change } from '../support/plan.js';

/** Apply's progress lines: written together off a terminal, one by one beside a terminal's status line. */

const created = (name: string): PlannedChange => change({ address: `TrunkIpAcl/${name}`, action: 'create' });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('ApplyProgress', () => {
  it('off a terminal, writes the lines finished in one turn of the event loop with one write', async () => {
    const writes: string[] = [];
    const progress = new ApplyProgress(3, { line: (text) => writes.push(text) });
    for (const [index, name] of ['a', 'b'].entries()) {
      progress.onEvent({ type: 'started', change: created(name) });
      progress.onEvent({ type: 'finished', change: created(name), outcome: { status: 'done', id: `ID${index}` } });
    }
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['created  TrunkIpAcl/a (id ID0)\ncreated  TrunkIpAcl/b (id ID1)']);
    progress.onEvent({
      type: 'finished',
      change: created('c'),
      outcome: { status: 'failed', error: 'the API answered 500' },
    });
    progress.flush();
    expect(writes).toEqual([
      writes[0],
      renderOutcome(created('c'), { status: 'failed', error: 'the API answered 500' }),
    ]);
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it('on a terminal, writes each line at once, before the status line is drawn again', () => {
    const output: string[] = [];
    const progress = new ApplyProgress(2, {
      line: (text) => output.push(`line ${text}`),
      status: (text) => output.push(`status ${text}`),
      clearStatus: () => output.push('clear'),
    });
    progress.onEvent({ type: 'started', change: created('a') });
    progress.onEvent({ type: 'started', change: created('b') });
    progress.onEvent({ type: 'finished', change: created('a'), outcome: { status: 'done', id: 'ID0' } });
    expect(output.slice(-3, -1)).toEqual(['clear', 'line created  TrunkIpAcl/a (id ID0)']);
    expect(output.at(-1)).toMatch(/^status /);
  });
});
