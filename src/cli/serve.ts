import { Command, InvalidArgumentError, Option } from 'commander';
import { systemClock } from '../util/clock.js';
import { parseShard, shardExpectation, type Shard } from '../util/shard.js';
import { accountNamePattern } from '../manifest/accounts-file.js';
import { ownPackageVersion } from '../manifest/schema-reference.js';
import type { Connect, GlobalOptions } from '../run/context.js';
import { serveConnections, startServe, type ServeAccount } from '../serve/start.js';
import { TelformError } from '../util/errors.js';
import { hostname } from 'node:os';
import { watchedAccounts, type WatchedSource } from '../serve/watched-accounts.js';
import { addClientOptions } from './client-options.js';
import { collect, duration, positiveInteger } from './option-parsers.js';
import { EndpointPools } from '../api/pools.js';
import { openSession } from './session.js';
import { addValuesOptions } from './values-options.js';
import { parseServeArguments, type ServeFlags, type ServeInput } from './arguments/serve.js';
import { inputOrRefuse } from './arguments/parsed.js';

export function serveCommand(): Command {
  const command = new Command('serve');
  // Every account has its own client, so its own budget: the API limits per account.
  return (
    addValuesOptions(
      addClientOptions(
        command,
        "each account's own client-side request budget, shared by its checks, callback reads and applies (default 300/5s, production's)",
      ),
    )
      .description(
        'Keep watching accounts: drift on an interval, status callbacks as hints, events, metrics and a status page.',
      )
      .option('-f, --file <path>', 'manifest file or folder of the one account watched (repeatable)', collect)
      .option(
        '--accounts <file>',
        'watch every account of this accounts file (see docs/many-accounts.md) instead of -f',
      )
      .option('--only <name>', 'with --accounts: only this account (repeatable)', collect)
      .option(
        '--policy <file>',
        "policy file judged for every plan, after the accounts file's own policies (repeatable; see docs/policies.md)",
        collect,
      )
      .addOption(
        new Option(
          '--shard <k/n>',
          'with --accounts: only the K-th of N deterministic partitions (one per replica)',
        ).argParser(shardOption),
      )
      .option('--name <name>', "with -f: the account's name in events, metrics and the page", accountName, 'default')
      // Defaults are shown as they are typed, not as the parsed milliseconds or object.
      .addOption(
        new Option('--interval <duration>', 'time between two drift checks of an account (at least 1s)')
          .argParser(interval)
          .default(300_000, '5m'),
      )
      .option('--jitter <fraction>', 'each interval is drawn within interval × (1 ± fraction)', fraction, 0.1)
      .option('--account-parallelism <n>', 'accounts checked at once', positiveInteger, 4)
      .option('--parallelism <n>', 'requests in flight at once within an apply', positiveInteger, 8)
      .addOption(
        new Option('--apply <mode>', 'never: only report; safe: apply plans that need no approval at all')
          .choices(['never', 'safe'])
          .default('never'),
      )
      .addOption(
        new Option('--listen <host:port>', 'address of the HTTP server (probes, metrics, status page, callbacks)')
          .argParser(listenOption)
          .default({ host: '127.0.0.1', port: 8080 }, '127.0.0.1:8080'),
      )
      .option(
        '--public-url <url>',
        'the URL the API reaches this server at (behind a proxy); callbacks are signed for it',
        urlOption,
      )
      .option('--notify <url>', 'also POST every event as JSON to this URL (retried, never blocking)', urlOption)
      .addOption(
        new Option(
          '--drain-timeout <duration>',
          'on SIGTERM or SIGINT, how long to let checks and applies under way finish',
        )
          .argParser(duration)
          .default(30_000, '30s'),
      )
      .option(
        '--queue <url>',
        'share the accounts with the other replicas through a job queue in this PostgreSQL database (postgres://…), or "state" for the state\'s own database',
        queueOption,
      )
      .option(
        '--replica <name>',
        "with --queue: this replica's name in the log, events, metrics and the queue (default: host name and process id)",
        accountName,
      )
      .addOption(
        new Option(
          '--check-expiry <duration>',
          "with --queue: a check running longer is taken over by another replica (a dead replica's checks are, after it)",
        )
          .argParser(duration)
          .default(120_000, '2m'),
      )
      .addOption(
        new Option(
          '--apply-expiry <duration>',
          'with --queue: the same for an apply; longer than the longest apply, and than --drain-timeout',
        )
          .argParser(duration)
          .default(3_600_000, '1h'),
      )
      .addOption(
        new Option(
          '--callback-window <duration>',
          'with --queue: callbacks for one account within this window make one check',
        )
          .argParser(duration)
          .default(5_000, '5s'),
      )
      .addHelpText(
        'after',
        `
Events (status changes, registry moves, applies) go to stdout as JSON lines; the log goes to stderr
as JSON lines. The server answers GET /healthz, /readyz, /metrics (Prometheus), / and /accounts/NAME
(the status page), and receives the API's 10DLC status callbacks at /callbacks (every account) or
/callbacks/NAME: give that URL as the url of brands and campaigns, e.g. url: { value: callback_url }
with callback_url in the accounts file's defaults.values. A callback's signature is checked with the
account's token, and a callback only makes serve re-read the object it names.
SIGTERM or SIGINT drains within --drain-timeout and releases every state lock.
With --queue, replicas share the accounts: each account's checks and applies run on one replica at a
time, the next check is queued an interval later, and a dead replica's jobs are taken over after
their expiry (docs/serve.md).

Examples:
  $ telform serve -f manifests/ --interval 5m
  $ telform serve --accounts accounts.yaml --listen 0.0.0.0:8080 --public-url https://telform.example.com
  $ telform serve --accounts accounts.yaml --apply safe --notify https://hooks.example.com/telform
  $ telform serve --accounts accounts.yaml --queue postgres://telform@db:5432/telform --apply safe`,
      )
      .action(async (flags: ServeFlags, cmd: Command) => {
        process.exitCode = await runServe(
          inputOrRefuse(parseServeArguments(flags)),
          cmd.optsWithGlobals<GlobalOptions>(),
        );
      })
  );
}

function shardOption(value: string): Shard {
  const shard = parseShard(value);
  if (!shard) throw new InvalidArgumentError(shardExpectation);
  return shard;
}

function accountName(value: string): string {
  if (!accountNamePattern.test(value))
    throw new InvalidArgumentError(
      'expected letters, digits, ".", "_" or "-" (at most 63, starting with a letter or digit)',
    );
  return value;
}

/** A check at most every second: 0 would check an account back to back, spending its whole API budget. */
function interval(value: string): number {
  const parsed = duration(value);
  if (parsed < 1_000) throw new InvalidArgumentError('expected a duration of at least 1s, such as 5m, 90s or 1h');
  return parsed;
}

function fraction(value: string): number {
  const parsed = Number(value);
  if (!/^\d*\.?\d+$/.test(value.trim()) || parsed > 1)
    throw new InvalidArgumentError('expected a fraction from 0 to 1, e.g. 0.1');
  return parsed;
}

function listenOption(value: string): { host: string; port: number } {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  const port = Number(match?.[3]);
  if (!match || port > 65_535)
    throw new InvalidArgumentError(
      'expected HOST:PORT, e.g. 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080 (port 0: any free port)',
    );
  return { host: (match[1] ?? match[2]) as string, port };
}

function queueOption(value: string): string {
  if (value === 'state') return value;
  if (!/^postgres(ql)?:\/\/./.test(value))
    throw new InvalidArgumentError('expected a postgres:// URL, or "state" for the state\'s own PostgreSQL database');
  return value;
}

function urlOption(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError('expected an http or https URL');
  return value;
}

async function runServe(input: ServeInput, globals: GlobalOptions): Promise<number> {
  const cwd = process.cwd();
  const options = input.flags;
  const log = (line: string) =>
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: line })}\n`);
  const source: WatchedSource =
    input.mode === 'one'
      ? { mode: 'one', name: options.name, paths: input.paths, values: options }
      : { mode: 'accounts', accountsFile: input.accountsFile, selection: options };
  const accounts = await watchedAccounts(source, globals, { cwd, env: process.env, policies: options.policy, log });
  // One bounded pool per endpoint, shared by every account's client (each keeps its own rate limit).
  const pools = new EndpointPools({ connections: serveConnections(options.accountParallelism, options.parallelism) });
  const serveConnect: Connect = (globalsOf, io) =>
    openSession(globalsOf, { env: io.env, note: io.stderr, logHttp: io.stderr, pools });
  const queue = options.queue === undefined ? undefined : queueUrl(options.queue, globals, accounts);
  const running = await startServe({
    accounts,
    connect: serveConnect,
    intervalMs: options.interval,
    jitter: options.jitter,
    accountParallelism: options.accountParallelism,
    parallelism: options.parallelism,
    apply: options.apply,
    listen: options.listen,
    ...(options.publicUrl === undefined ? {} : { publicUrl: options.publicUrl }),
    ...(options.notify === undefined ? {} : { notifyUrl: options.notify }),
    drainMs: options.drainTimeout,
    ...(queue === undefined
      ? {}
      : {
          queue: {
            url: queue,
            replica: options.replica ?? `${hostname()}-${process.pid}`,
            checkExpiryMs: options.checkExpiry,
            applyExpiryMs: options.applyExpiry,
            callbackWindowMs: options.callbackWindow,
          },
        }),
    version: ownPackageVersion(),
    clock: systemClock,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      running
        .stop(signal)
        .then(() => pools.close())
        .then(resolve, resolve);
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  return 0;
}

/**
 * `--queue state`: the state's own PostgreSQL database — the `--state` given, or the one state every
 * account of the accounts file shares.
 */
function queueUrl(given: string, globals: GlobalOptions, accounts: readonly ServeAccount[]): string {
  if (given !== 'state') return given;
  const isPostgres = (state: string | undefined): state is string =>
    state !== undefined && /^postgres(ql)?:\/\//.test(state);
  if (isPostgres(globals.state)) return globals.state;
  const states = new Set(accounts.map((account) => account.globals.state));
  const [only] = states;
  if (states.size === 1 && isPostgres(only)) return only;
  throw new TelformError(
    'bad_option',
    "--queue state needs one PostgreSQL state for every account (--state postgres://…, or the same state in the accounts file); give the queue's database as --queue postgres://…",
  );
}
