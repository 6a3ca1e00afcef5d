// `telform emulator request METHOD PATH [BODY]`: one API request to this folder's embedded emulator, as
// its account, sent by nobody's manifests: the way to change something "outside telform" (a person in the
// console, a script) on the emulator that `--endpoint local` runs only while a command runs. It never
// reaches any other endpoint, whatever the environment says.
import { Command } from 'commander';
import { TelformError } from '../util/errors.js';
import { printable, printableJson } from '../util/printable.js';
import { asCliError } from './emulator.js';
import { embeddedEmulatorOptions } from './session.js';

const methods = ['GET', 'POST', 'DELETE'] as const;

/** The URL of `path` on an emulator at `base`: an admin route as it is, anything else under the account. */
function requestUrl(base: string, account: string, path: string): string {
  if (path.startsWith('/__emulator/')) return `${base}${path}`;
  const relative = path.replace(/^\/+/, '').replace(/^v1\/Account\/[^/]+\//, '');
  return `${base}/v1/Account/${account}/${relative}`;
}

function parseBody(body: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  try {
    JSON.parse(body);
  } catch {
    throw new TelformError('bad_option', 'the request body must be JSON, e.g. \'{"secure": false}\'');
  }
  return body;
}

export function emulatorRequestCommand(): Command {
  return new Command('request')
    .description(
      "Send one API request to this folder's embedded emulator (.telform/), as its account: a change made outside telform. Prints the status and the answer.",
    )
    .argument('<method>', `${methods.join(', ')}`)
    .argument('<path>', 'under /v1/Account/{auth_id}/ (e.g. Zentrunk/Trunk/ID/), or an admin route /__emulator/…')
    .argument('[body]', 'the JSON body of a POST')
    .addHelpText(
      'after',
      `
Examples:
  $ telform emulator request GET Zentrunk/Trunk/
  $ telform emulator request POST Zentrunk/Trunk/35805580219982018/ '{"secure": false}'
  $ telform emulator request POST /__emulator/clock/ '{"advance_ms": 86400000}'`,
    )
    .action(async (method: string, path: string, body: string | undefined) => {
      const verb = method.toUpperCase();
      if (!(methods as readonly string[]).includes(verb))
        throw new TelformError(
          'bad_option',
          `the method must be one of ${methods.join(', ')}, not "${printable(method)}"`,
        );
      const payload = parseBody(body);
      const { startEmbeddedEmulator } = await import('../emulator/embedded.js');
      let emulator;
      try {
        emulator = await startEmbeddedEmulator({ emulator: embeddedEmulatorOptions(process.env) });
      } catch (error) {
        throw asCliError(error);
      }
      try {
        const credentials = Buffer.from(`${emulator.authId}:${emulator.authToken}`).toString('base64');
        const response = await fetch(requestUrl(emulator.url, emulator.authId, path), {
          method: verb,
          headers: {
            authorization: `Basic ${credentials}`,
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(payload === undefined ? {} : { body: payload }),
        });
        const text = await response.text();
        let shown = text;
        try {
          shown = printableJson(JSON.stringify(JSON.parse(text), null, 2));
        } catch {
          shown = printable(text);
        }
        process.stdout.write(`HTTP ${response.status}\n${shown === '' ? '' : `${shown}\n`}`);
        if (!response.ok) process.exitCode = 1;
      } finally {
        await emulator.close();
      }
    });
}
