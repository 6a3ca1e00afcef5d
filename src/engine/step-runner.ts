import type { PlannedChange } from './plan-types.js';

/**
 * Runs an apply's steps with bounded parallelism, each once the steps it depends on have settled:
 * first the main steps of creates, updates and replaces, then — once every one of those has
 * settled — deletes and the deletes of what replaces superseded. A step whose dependency failed,
 * was skipped or is pending does not run: it is skipped (or left pending). Steps whose
 * dependencies can never settle (a cycle) are skipped; nothing waits forever.
 *
 * Each step counts the dependencies it still waits for, and is queued when the count reaches zero,
 * so a completion costs only its dependents (not a scan of every step left). Of the steps ready at
 * once, those at the head of the longest remaining chain of work go first (the chain's requests,
 * as the plan estimates them): steps others wait for start early, and the last waves leave fewer
 * slots idle.
 */

export type ChangeOutcome =
  | { status: 'done'; id?: string }
  | { status: 'failed'; error: string }
  | { status: 'skipped'; reason: string }
  /** A `wait` change left for a later apply (no --wait, or the registry did not answer in time). */
  | { status: 'pending'; reason: string }
  | { status: 'blocked'; reason: string };

export interface Step {
  change: PlannedChange;
  /** `replace-delete`: the second step of a create-before-delete replace, deleting the old object. */
  part: 'main' | 'replace-delete';
  /** Addresses that must have settled first. */
  after: readonly string[];
  /** The requests this step sends, as far as known beforehand (at least 1): its share of a chain's length. */
  weight: number;
}

export interface StepRunnerOptions {
  parallelism: number;
  /** Runs a step; a throw is a failure. */
  execute(step: Step): Promise<ChangeOutcome>;
  started?(step: Step): void;
  finished?(step: Step, outcome: ChangeOutcome): void;
}

export class StepRunner {
  /** Outcomes by step key: the address for a main step, `address#delete` for the delete of a replace. */
  private readonly settled = new Map<string, ChangeOutcome>();

  /**
   * @param outcomes outcomes by address, holding those decided before the run (blocked changes); a
   * dependency outside the steps is judged by it. The runner adds each step's outcome (a replace's
   * failed delete does not hide that its create was done only if the create failed).
   */
  constructor(
    private readonly steps: readonly Step[],
    private readonly outcomes: Map<string, ChangeOutcome>,
    private readonly options: StepRunnerOptions,
  ) {}

  async run(): Promise<void> {
    const isMain = (step: Step): boolean => step.part === 'main' && step.change.action !== 'delete';
    await this.runWave(this.steps.filter(isMain));
    await this.runWave(this.steps.filter((step) => !isMain(step)));
  }

  private runWave(steps: readonly Step[]): Promise<void> {
    const wave = new Wave(steps, this.settled);
    return new Promise<void>((resolve, reject) => {
      let running = 0;
      const release = (index: number): void => {
        // Settling one step may settle others at once (a failure skips its dependents): a worklist, not recursion.
        const settledNow = [index];
        for (let next = settledNow.pop(); next !== undefined; next = settledNow.pop()) {
          for (const dependent of wave.settle(next)) {
            const failure = this.failedDependency(wave.blockers(dependent));
            if (failure === undefined) {
              wave.enqueue(dependent);
            } else {
              this.finish(wave.steps[dependent] as Step, failure);
              settledNow.push(dependent);
            }
          }
        }
      };
      const pump = (): void => {
        while (running < this.options.parallelism) {
          const index = wave.dequeue();
          if (index === undefined) break;
          running += 1;
          this.start(wave.steps[index] as Step)
            .then(() => {
              running -= 1;
              release(index);
              pump();
            })
            .catch(reject);
        }
        if (running > 0 || wave.hasQueued()) return;
        // Only steps whose dependencies can never settle are left (a cycle): report them, never hang.
        for (const index of wave.unsettled()) {
          this.finish(wave.steps[index] as Step, {
            status: 'skipped',
            reason: 'its dependencies could not be ordered',
          });
        }
        resolve();
      };
      try {
        for (const index of wave.initiallyReady()) {
          const failure = this.failedDependency(wave.blockers(index));
          if (failure === undefined) {
            wave.enqueue(index);
          } else {
            this.finish(wave.steps[index] as Step, failure);
            release(index);
          }
        }
        pump();
      } catch (error) {
        reject(error);
      }
    });
  }

  /** The outcome of a step whose dependency did not complete, or undefined when all did (or have none). */
  private failedDependency(blockers: readonly string[]): ChangeOutcome | undefined {
    for (const address of blockers) {
      const outcome = this.settled.get(address) ?? this.outcomes.get(address);
      if (outcome === undefined || outcome.status === 'done') continue;
      return outcome.status === 'pending'
        ? { status: 'pending', reason: `waits for ${address}` }
        : { status: 'skipped', reason: `${address} did not complete` };
    }
    return undefined;
  }

  private async start(step: Step): Promise<void> {
    this.options.started?.(step);
    let outcome: ChangeOutcome;
    try {
      outcome = await this.options.execute(step);
    } catch (error) {
      outcome = { status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
    this.finish(step, outcome);
  }

  private finish(step: Step, outcome: ChangeOutcome): void {
    this.settled.set(stepKey(step), outcome);
    const previous = this.outcomes.get(step.change.address);
    if (!previous || previous.status === 'done') this.outcomes.set(step.change.address, outcome);
    this.options.finished?.(step, outcome);
  }
}

function stepKey(step: Step): string {
  return step.part === 'main' ? step.change.address : `${step.change.address}#delete`;
}

/**
 * One wave's bookkeeping: which steps wait for which, how many dependencies each still waits for,
 * and the queue of ready steps by priority. A dependency counts only if it is a main step of this
 * wave not settled yet (what settled in an earlier wave, or is no step at all, is judged by its
 * outcome when the step is dequeued).
 */
class Wave {
  private readonly blockerLists: string[][];
  private readonly waiting: number[];
  /** By address: the steps waiting for the main step of that address to settle. */
  private readonly dependents = new Map<string, number[]>();
  private readonly priority: number[];
  private readonly queue: number[] = [];
  private readonly done: boolean[];

  constructor(
    readonly steps: readonly Step[],
    settled: ReadonlyMap<string, ChangeOutcome>,
  ) {
    const mainSteps = new Map<string, number>();
    steps.forEach((step, index) => {
      if (step.part === 'main') mainSteps.set(step.change.address, index);
    });
    // A replace's own main step settled in the first wave; its delete waits for it by address.
    const inWave = new Set(steps.map((step) => step.change.address));
    this.blockerLists = steps.map((step) => [
      ...new Set(step.after.filter((address) => address !== step.change.address || step.part === 'replace-delete')),
    ]);
    this.waiting = this.blockerLists.map((blockers, index) => {
      let count = 0;
      for (const address of blockers) {
        if (!inWave.has(address) || settled.has(address)) continue;
        count += 1;
        const list = this.dependents.get(address);
        if (list) list.push(index);
        else this.dependents.set(address, [index]);
      }
      return count;
    });
    this.done = steps.map(() => false);
    this.priority = chainLengths(steps, this.blockerLists, mainSteps);
  }

  blockers(index: number): readonly string[] {
    return this.blockerLists[index] ?? [];
  }

  initiallyReady(): number[] {
    return this.steps.flatMap((_, index) => ((this.waiting[index] ?? 0) === 0 ? [index] : []));
  }

  /** Marks a step settled; returns the steps this made ready (their last dependency). */
  settle(index: number): number[] {
    this.done[index] = true;
    const step = this.steps[index] as Step;
    if (step.part !== 'main') return [];
    const ready: number[] = [];
    for (const dependent of this.dependents.get(step.change.address) ?? []) {
      const left = (this.waiting[dependent] ?? 0) - 1;
      this.waiting[dependent] = left;
      if (left === 0) ready.push(dependent);
    }
    return ready;
  }

  unsettled(): number[] {
    return this.steps.flatMap((_, index) => (this.done[index] ? [] : [index]));
  }

  hasQueued(): boolean {
    return this.queue.length > 0;
  }

  /** Queues a ready step (a binary heap: the longest remaining chain first, then plan order). */
  enqueue(index: number): void {
    const heap = this.queue;
    heap.push(index);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.before(heap[at] as number, heap[parent] as number)) break;
      [heap[at], heap[parent]] = [heap[parent] as number, heap[at] as number];
      at = parent;
    }
  }

  dequeue(): number | undefined {
    const heap = this.queue;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    heap[0] = last;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let best = at;
      if (left < heap.length && this.before(heap[left] as number, heap[best] as number)) best = left;
      if (right < heap.length && this.before(heap[right] as number, heap[best] as number)) best = right;
      if (best === at) break;
      [heap[at], heap[best]] = [heap[best] as number, heap[at] as number];
      at = best;
    }
    return top;
  }

  private before(a: number, b: number): boolean {
    const byChain = (this.priority[b] ?? 0) - (this.priority[a] ?? 0);
    return byChain === 0 ? a < b : byChain < 0;
  }
}

/**
 * For each step: its weight plus the longest chain of weights among the steps of the wave that
 * wait for it, directly or not. A cycle contributes nothing beyond the first visit (its steps are
 * skipped anyway).
 */
function chainLengths(
  steps: readonly Step[],
  blockerLists: readonly string[][],
  mainSteps: ReadonlyMap<string, number>,
): number[] {
  const waitsOnMe: number[][] = steps.map(() => []);
  blockerLists.forEach((blockers, index) => {
    for (const address of blockers) {
      const blocker = mainSteps.get(address);
      if (blocker !== undefined && blocker !== index) waitsOnMe[blocker]?.push(index);
    }
  });
  const length: number[] = steps.map(() => -1);
  for (let root = 0; root < steps.length; root += 1) {
    if ((length[root] ?? -1) >= 0) continue;
    // Iterative depth-first post-order: a long chain of dependencies must not overflow the stack.
    const stack: Array<{ index: number; next: number }> = [{ index: root, next: 0 }];
    length[root] = 0;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as { index: number; next: number };
      const children = waitsOnMe[frame.index] ?? [];
      if (frame.next < children.length) {
        const child = children[frame.next] as number;
        frame.next += 1;
        if ((length[child] ?? -1) < 0) {
          length[child] = 0;
          stack.push({ index: child, next: 0 });
        }
        continue;
      }
      stack.pop();
      let longest = 0;
      for (const child of children) longest = Math.max(longest, length[child] ?? 0);
      length[frame.index] = (steps[frame.index]?.weight ?? 1) + longest;
    }
  }
  return length;
}
