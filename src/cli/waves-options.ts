// The flags of an apply in waves (`--waves`, `--canary`, `--soak`, `--resume`, `--restart`): checked
// against each other in arguments/shared.ts, run by `src/run/rollout.ts`.
import type { Command } from 'commander';
import { collect, duration } from './option-parsers.js';

export interface WavesOptionValues {
  waves?: string;
  canary: string[];
  soak?: number;
  resume?: boolean;
  restart?: boolean;
  ignoreRollout?: boolean;
}

export function addWavesOptions(command: Command): Command {
  return command
    .option(
      '--waves <steps>',
      'with --accounts: roll out in waves, each step the cumulative number or percentage of accounts, e.g. 1,10%,100% (see docs/values-and-waves.md)',
    )
    .option(
      '--canary <name>',
      'with --waves: this account is in the first wave, alone with the other canaries (repeatable)',
      collect,
      [],
    )
    .option(
      '--soak <duration>',
      "with --waves: wait this long after a wave's apply before its drift check (e.g. 10m)",
      duration,
    )
    .option(
      '--resume',
      "with --accounts: continue the rollout that stopped (recorded beside the accounts' state), applying only the accounts not yet done",
    )
    .option('--restart', 'with --waves: discard the progress of a stopped rollout and start a new one')
    .option(
      '--ignore-rollout',
      'with --accounts and no --waves: apply even while a recorded rollout over these accounts is unfinished',
    );
}
