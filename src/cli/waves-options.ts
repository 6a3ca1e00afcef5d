// The flags of an apply in waves (`--waves`, `--canary`, `--soak`, `--resume`, `--restart`): parsed
// and checked against each other here, run by `src/run/rollout.ts`.
import type { Command } from 'commander';
import { parseWaves } from '../engine/waves.js';
import type { RolloutOptions } from '../run/rollout.js';
import { TelformError } from '../util/errors.js';
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
    .option('--waves <steps>', 'with --accounts: roll out in waves, each step the cumulative number or percentage of accounts, e.g. 1,10%,100% (see docs/values-and-waves.md)')
    .option('--canary <name>', 'with --waves: this account is in the first wave, alone with the other canaries (repeatable)', collect, [])
    .option('--soak <duration>', "with --waves: wait this long after a wave's apply before its drift check (e.g. 10m)", duration)
    .option('--resume', "with --accounts: continue the rollout that stopped (recorded beside the accounts' state), applying only the accounts not yet done")
    .option('--restart', 'with --waves: discard the progress of a stopped rollout and start a new one')
    .option('--ignore-rollout', 'with --accounts and no --waves: apply even while a recorded rollout over these accounts is unfinished');
}

/** The rollout the flags ask for, or undefined for an apply of every account at once. */
export function rolloutFromOptions(options: WavesOptionValues & { accounts?: string | undefined }): RolloutOptions | undefined {
  const rollout = options.waves !== undefined || options.resume === true;
  if (options.ignoreRollout && !options.accounts) throw new TelformError('bad_option', '--ignore-rollout is for an apply over --accounts FILE');
  if (rollout && options.ignoreRollout) throw new TelformError('bad_option', '--ignore-rollout is for an apply of every account at once: give it without --waves or --resume');
  if (!rollout) {
    if (options.canary.length > 0 || options.soak !== undefined || options.restart) {
      throw new TelformError('bad_option', '--canary, --soak and --restart are for a rollout in waves: give --waves too');
    }
    return undefined;
  }
  if (!options.accounts) throw new TelformError('bad_option', '--waves and --resume roll out over the accounts of an accounts file: give --accounts FILE');
  if (options.resume && options.waves !== undefined) throw new TelformError('bad_option', '--resume continues the waves recorded when the rollout started: give --resume without --waves');
  if (options.resume && options.canary.length > 0) throw new TelformError('bad_option', '--resume continues the waves recorded when the rollout started: give --resume without --canary');
  return {
    ...(options.waves !== undefined ? { waves: parseWaves(options.waves) } : {}),
    canary: options.canary,
    soakMs: options.soak ?? 0,
    resume: options.resume === true,
    restart: options.restart === true,
  };
}
