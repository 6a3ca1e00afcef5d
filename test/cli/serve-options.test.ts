import { describe, expect, it } from 'vitest';
import { serveCommand } from '../../src/cli/serve.js';

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
});
