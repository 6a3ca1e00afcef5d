import { writeFileSync } from 'node:fs';
import { RecordingStageTimer, untimed, type StageTimer } from '../util/stage-timer.js';

/**
 * The stage timer of this command: with TELFORM_TIMINGS_FILE set (the benchmarks set it), the CPU
 * and wall time of each stage are written there as JSON when the process exits; otherwise nothing
 * is measured.
 */
export const commandTimer: StageTimer = timerFromEnvironment(process.env.TELFORM_TIMINGS_FILE);

function timerFromEnvironment(file: string | undefined): StageTimer {
  if (!file) return untimed;
  const timer = new RecordingStageTimer();
  process.on('exit', () => {
    const rounded = Object.fromEntries(
      Object.entries(timer.totals).map(([stage, total]) => [
        stage,
        { cpu_ms: Math.round(total.cpu_ms), wall_ms: Math.round(total.wall_ms) },
      ]),
    );
    writeFileSync(file, `${JSON.stringify(rounded)}\n`);
  });
  return timer;
}
