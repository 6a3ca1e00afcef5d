import { InvalidArgumentError, type Command } from 'commander';
import { parseRateLimit } from '../api/limiter.js';

/**
 * `--rate-limit N/PERIOD`: the client-side limit every request of the run shares (docs/commands.md;
 * default production's 300 per 5 s). On the commands that talk to the API.
 */
export function addClientOptions(
  command: Command,
  description = "client-side request limit shared by the whole run (default 300/5s, production's)",
): Command {
  return command.option('--rate-limit <n/period>', description, (value: string) => {
    if (!parseRateLimit(value)) throw new InvalidArgumentError('expected N/PERIOD, e.g. 300/5s or 10/s');
    return value;
  });
}
