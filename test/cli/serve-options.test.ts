import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../src/cli/serve.js';
import { parseServeArguments, type ServeFlags } from '../../src/cli/arguments/serve.js';

/** `telform serve`'s flags as a user reads and types them (issue 33 items 15 and 32). */

function parseError(args: string[]): string {
  const command = serveCommand()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  try {
    command.parse(args, { from: 'user' });
  } catch (error) {
    return (error as Error).message;
  }
  return 'parsed';
}

describe('serve options', () => {
  it('prints its defaults as they are typed, and describes --rate-limit per account as docs/serve.md does', () => {
    const help = serveCommand().helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('time between two drift checks of an account (at least 1s) (default: 5m)');
    expect(help).toContain('(default: 127.0.0.1:8080)');
    expect(help).toContain('finish (default: 30s)');
    expect(help).not.toMatch(/300000|30000|"host"/);
    expect(help).toContain('manifest file or folder of the one account watched (repeatable) --accounts');
    expect(help).toContain('with --accounts: only this account (repeatable) --policy');
    expect(help).toContain(
      "--rate-limit <n/period> each account's own client-side request budget, shared by its checks, callback reads and applies (default 300/5s, production's)",
    );
  });

  it('refuses an interval under a second with one sentence naming the flag', () => {
    expect(parseError(['--interval', '0'])).toBe(
      "error: option '--interval <duration>' argument '0' is invalid. expected a duration of at least 1s, such as 5m, 90s or 1h",
    );
    expect(parseError(['--interval', '500ms'])).toBe(
      "error: option '--interval <duration>' argument '500ms' is invalid. expected a duration of at least 1s, such as 5m, 90s or 1h",
    );
  });

  it('takes a queue as a postgres:// URL or "state", and refuses what would split or name the fleet wrongly', () => {
    expect(parseError(['--queue', 'mysql://db/telform'])).toBe(
      "error: option '--queue <url>' argument 'mysql://db/telform' is invalid. expected a postgres:// URL, or \"state\" for the state's own PostgreSQL database",
    );
    const help = serveCommand().helpInformation().replace(/\s+/g, ' ');
    expect(help).toContain('(default: 2m)');
    expect(help).toContain('(default: 1h)');
    expect(help).toContain('(default: 5s)');
    const flags = (given: Partial<ServeFlags>): ServeFlags => ({
      accounts: 'accounts.yaml',
      value: [],
      name: 'default',
      interval: 300_000,
      jitter: 0.1,
      accountParallelism: 4,
      parallelism: 8,
      apply: 'never',
      listen: { host: '127.0.0.1', port: 0 },
      drainTimeout: 30_000,
      checkExpiry: 120_000,
      applyExpiry: 3_600_000,
      callbackWindow: 5_000,
      ...given,
    });
    expect(parseServeArguments(flags({ queue: 'state', replica: 'r1' })).problems ?? []).toEqual([]);
    expect(parseServeArguments(flags({ queue: 'state', shard: { index: 1, count: 2 } })).problems).toEqual([
      '--queue and --shard both split the accounts between replicas: with --queue every replica takes its share from the queue, so leave out --shard',
    ]);
    expect(parseServeArguments(flags({ replica: 'r1' })).problems).toEqual([
      '--replica names one of the replicas sharing a --queue: give --queue too',
    ]);
    expect(parseServeArguments(flags({ queue: 'state', applyExpiry: 30_000 })).problems).toEqual([
      '--apply-expiry must be longer than --drain-timeout: an apply still draining would otherwise be taken over while it runs',
    ]);
  });
});
