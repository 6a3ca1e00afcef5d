import { Command, InvalidArgumentError, Option } from 'commander';
import { TelformError } from '../util/errors.js';
import { printable } from '../util/printable.js';
import {
  EmulatorStartError,
  defaultAccount,
  isLoopbackHost,
  resolvePort,
  startEmulator,
  type EmulatorAccount,
} from '../emulator/index.js';
import { resolveFaults } from '../emulator/faults.js';
import { resolveLatency } from '../emulator/latency.js';
import { authIdPattern, defaultShapes, resolveProducts, shapeNames, type Shapes } from '../emulator/options.js';
import { resolveRateLimit } from '../emulator/rate-limit.js';

/** Parses a non-negative integer option value (milliseconds). */
function nonNegativeInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return parsed;
}

/** Runs an emulator option check at parse time, so a bad value is one line naming the flag (exit 1). */
function checked<T>(check: (value: string) => T): (value: string) => string {
  return (value) => {
    try {
      check(value);
    } catch (error) {
      if (error instanceof EmulatorStartError) throw new InvalidArgumentError(`${error.message}.`);
      throw error;
    }
    return value;
  };
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Reads `--account ID:TOKEN` values; a bad one is refused without echoing it, since it holds a token. */
function parseAccounts(values: readonly string[]): EmulatorAccount[] {
  return values.map((value, index) => {
    const colon = value.indexOf(':');
    const authId = colon < 0 ? value : value.slice(0, colon);
    const authToken = colon < 0 ? '' : value.slice(colon + 1);
    if (!authIdPattern.test(authId) || authToken === '') {
      throw new TelformError(
        'invalid_option',
        `--account value number ${index + 1} must be ID:TOKEN, with an Auth ID of 1 to 64 letters or digits and a non-empty token.`,
      );
    }
    return { authId, authToken };
  });
}

/**
 * Converts an emulator start failure into the CLI's user error (one line, exit 1, no stack); anything
 * else is returned unchanged. For every command that starts an emulator (this one, `--endpoint local`).
 */
export function asCliError(error: unknown): unknown {
  if (error instanceof EmulatorStartError) {
    const message = /[.!?]$/.test(error.message) ? error.message : `${error.message}.`;
    return new TelformError(`emulator_${error.code}`, message, { cause: error });
  }
  return error;
}

interface EmulatorFlags {
  host: string;
  port: number;
  authId?: string;
  authToken?: string;
  account?: string[];
  registryDelay: number;
  data?: string;
  latency?: string;
  rateLimit?: string;
  faults?: string;
  seed?: string;
  trunkGet: 'object' | 'flat';
  shapes?: Shapes;
  products?: string;
}

export function emulatorCommand(): Command {
  return new Command('emulator')
    .description('Run the local emulator of the API (no account needed); prints "listening on URL" once ready.')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--port <port>',
      'port to listen on (0: any free port)',
      (value: string) => resolvePort(checked(resolvePort)(value)),
      0,
    )
    .option('--auth-id <id>', `Auth ID of the account served (default ${defaultAccount.authId})`)
    .option('--auth-token <token>', 'Auth Token of that account (default: the documented emulator token)')
    .option(
      '--account <id:token>',
      'serve another account (repeatable); with only --account flags, the default account is not served',
      collect,
    )
    .option('--registry-delay <ms>', 'how long 10DLC registrations stay PROCESSING', nonNegativeInteger, 5000)
    .option(
      '--data <file>',
      'load the state from FILE (if it exists) and save it there before each write is acknowledged',
    )
    .option('--latency <ms>', 'delay every API request by MS, or by a uniform MIN-MAX', checked(resolveLatency))
    .option(
      '--rate-limit <n/period>',
      "limit each account to N requests per PERIOD (e.g. 300/5s, production's); default none",
      checked(resolveRateLimit),
    )
    .option(
      '--faults <spec>',
      'inject faults, e.g. 500=0.1,reset=0.05,lost=0.2,methods=POST+DELETE,seed=42',
      checked(resolveFaults),
    )
    .option('--seed <file>', 'YAML or JSON file of profiles, applications and numbers to start with')
    .addOption(
      new Option(
        '--trunk-get <shape>',
        'body of GET /Zentrunk/Trunk/{id}/: nested under "object" (as production answers) or flat (as the docs show)',
      )
        .choices(['object', 'flat'])
        .default('object'),
    )
    .addOption(
      new Option(
        '--shapes <shapes>',
        `production: new accounts hold legacy objects and reads answer as production does; ideal: only the documented starting set, every stored field read back (default: TELFORM_EMULATOR_SHAPES, else ${defaultShapes})`,
      ).choices(shapeNames),
    )
    .option(
      '--products <list>',
      'products the accounts have, comma-separated: sip-trunking, 10dlc, or none (default: both); requests to another answer 403',
      checked(resolveProducts),
    )
    .addHelpText(
      'after',
      `
Faults (--faults): comma-separated key=value items; probabilities are decimals or percentages.
  500=P      answer 500 without handling the request
  reset=P    reset the connection before the request is handled
  lost=P     handle the request (a write is committed and saved), then drop the connection unanswered
  methods=M  only requests of these methods, joined with + (default GET+POST+DELETE)
  seed=N     seed of the generator, for reproducible runs (default random, shown by GET /__emulator/faults/)

Examples:
  $ telform emulator
  listening on http://127.0.0.1:41235
  $ telform emulator --port 8080 --auth-id MATEST00000000000001 --auth-token s3cret
  $ telform emulator --data emulator.json --seed seed.yaml --account MATEAM00000000000002:team-token
  $ telform emulator --products 10dlc          # an account without SIP trunking: /Zentrunk/ answers 403
  $ telform emulator --data account.snapshot.json   # a replica of an account (telform snapshot), kept in memory
  $ telform emulator --shapes ideal            # no legacy objects; campaign reads return every field sent
  $ telform emulator --latency 20-80 --rate-limit 300/5s --faults 500=0.05,lost=0.1,methods=POST+DELETE,seed=7
  $ TELFORM_ENDPOINT=http://127.0.0.1:8080 TELFORM_AUTH_ID=MATEST00000000000001 TELFORM_AUTH_TOKEN=s3cret telform plan -f examples/10dlc/
  $ telform emulator request GET Zentrunk/Trunk/   # one request to this folder's embedded emulator`,
    )
    .action(async (flags: EmulatorFlags) => {
      const accounts: EmulatorAccount[] = [];
      const extra = parseAccounts(flags.account ?? []);
      if (flags.authId !== undefined || flags.authToken !== undefined || extra.length === 0) {
        accounts.push({
          authId: flags.authId ?? defaultAccount.authId,
          authToken: flags.authToken ?? defaultAccount.authToken,
        });
      }
      accounts.push(...extra);
      let emulator;
      try {
        emulator = await startEmulator({
          host: flags.host,
          port: flags.port,
          accounts,
          registryDelayMs: flags.registryDelay,
          trunkGetShape: flags.trunkGet,
          ...(flags.shapes !== undefined ? { shapes: flags.shapes } : {}),
          ...(flags.products !== undefined ? { products: [...resolveProducts(flags.products)] } : {}),
          ...(flags.data !== undefined ? { dataFile: flags.data } : {}),
          ...(flags.latency !== undefined ? { latency: flags.latency } : {}),
          ...(flags.rateLimit !== undefined ? { rateLimit: flags.rateLimit } : {}),
          ...(flags.faults !== undefined ? { faults: flags.faults } : {}),
          ...(flags.seed !== undefined ? { seedFile: flags.seed } : {}),
        });
      } catch (error) {
        throw asCliError(error);
      }
      const running = emulator;
      // The signal handlers are in place before the ready line, so a caller that stops the emulator
      // as soon as it reads that line gets a clean stop (exit 0), not the default signal death.
      const stopped = new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void running.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      if (!isLoopbackHost(running.host)) {
        process.stderr.write(
          `warning: the emulator listens on ${running.host}, which is not a loopback address: anyone who can reach it can use the /__emulator/ admin routes, which need no authentication.\n`,
        );
      }
      if (running.snapshot) {
        const served = accounts[0]?.authId ?? defaultAccount.authId;
        process.stderr.write(
          `serving the snapshot of account ${printable(running.snapshot.account ?? 'unknown')} taken at ${printable(running.snapshot.takenAt ?? 'an unknown time')} as account ${served}; changes stay in memory (the snapshot file is never written)\n`,
        );
      }
      process.stdout.write(`listening on ${running.url}\n`);
      await stopped;
    });
}
