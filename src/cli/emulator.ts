import { Command, InvalidArgumentError } from 'commander';
import { startEmulator, defaultAccount } from '../emulator/index.js';

/** Parses a non-negative integer option value (ports, milliseconds). */
function nonNegativeInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return parsed;
}

export function emulatorCommand(): Command {
  return new Command('emulator')
    .description('Run the local emulator of the API (no account needed); prints "listening on URL" once ready.')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', nonNegativeInteger, 0)
    .option('--auth-id <id>', 'Auth ID of the account served', defaultAccount.authId)
    .option('--auth-token <token>', 'Auth Token of the account served', defaultAccount.authToken)
    .option('--registry-delay <ms>', 'how long 10DLC registrations stay PROCESSING', nonNegativeInteger, 5000)
    .addHelpText(
      'after',
      `
Examples:
  $ telform emulator
  listening on http://127.0.0.1:41235
  $ telform emulator --port 8080 --auth-id MATEST00000000000001 --auth-token s3cret
  $ TELFORM_ENDPOINT=http://127.0.0.1:8080 TELFORM_AUTH_ID=MATEST00000000000001 TELFORM_AUTH_TOKEN=s3cret telform plan -f examples/`,
    )
    .action(async (options: { host: string; port: number; authId: string; authToken: string; registryDelay: number }) => {
      const emulator = await startEmulator({
        host: options.host,
        port: options.port,
        accounts: [{ authId: options.authId, authToken: options.authToken }],
        registryDelayMs: options.registryDelay,
      });
      process.stdout.write(`listening on ${emulator.url}\n`);
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void emulator.close().then(resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
