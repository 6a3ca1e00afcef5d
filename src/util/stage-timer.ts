/**
 * Where a command's time goes, stage by stage (load and validate, read, match and diff, order,
 * render), for the benchmarks. Stages may nest: a stage's time excludes the stages run inside it,
 * so the totals add up to the time measured. CPU time is the whole process's (`process.cpuUsage`),
 * which is the command's own work while a single command runs.
 */
export type Stage = 'load' | 'read' | 'diff' | 'order' | 'render';

export interface StageTimer {
  time<T>(stage: Stage, work: () => T): T;
  timeAsync<T>(stage: Stage, work: () => Promise<T>): Promise<T>;
}

/** The default: measures nothing and costs nothing. */
export const untimed: StageTimer = {
  time: (_stage, work) => work(),
  timeAsync: (_stage, work) => work(),
};

export interface StageTotals {
  cpu_ms: number;
  wall_ms: number;
}

interface Open {
  cpuStart: number;
  wallStart: number;
  nestedCpu: number;
  nestedWall: number;
}

export class RecordingStageTimer implements StageTimer {
  readonly totals: Partial<Record<Stage, StageTotals>> = {};
  private readonly open: Open[] = [];

  time<T>(stage: Stage, work: () => T): T {
    this.start();
    try {
      return work();
    } finally {
      this.stop(stage);
    }
  }

  async timeAsync<T>(stage: Stage, work: () => Promise<T>): Promise<T> {
    this.start();
    try {
      return await work();
    } finally {
      this.stop(stage);
    }
  }

  private start(): void {
    this.open.push({ cpuStart: cpuMs(), wallStart: performance.now(), nestedCpu: 0, nestedWall: 0 });
  }

  private stop(stage: Stage): void {
    const entry = this.open.pop();
    if (!entry) return;
    const cpu = cpuMs() - entry.cpuStart;
    const wall = performance.now() - entry.wallStart;
    const total = (this.totals[stage] ??= { cpu_ms: 0, wall_ms: 0 });
    total.cpu_ms += cpu - entry.nestedCpu;
    total.wall_ms += wall - entry.nestedWall;
    const parent = this.open[this.open.length - 1];
    if (parent) {
      parent.nestedCpu += cpu;
      parent.nestedWall += wall;
    }
  }
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}
