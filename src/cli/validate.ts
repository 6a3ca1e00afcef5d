import { Command, Option } from 'commander';
import { formatChoices, rendererFor } from '../render/index.js';
import { addValuesOptions } from './values-options.js';
import { validate, type ValidateSource, type Validation } from '../run/validate.js';
import { parseValidateArguments, type ValidateFlags } from './arguments/validate.js';
import { inputOrRefuse } from './arguments/parsed.js';
import { catalog } from '../resources/index.js';
import { addSecretFileOption } from './plan-command-options.js';
import type { GlobalOptions } from '../run/context.js';

/** `-f` may be repeated; commander calls this once per occurrence. No default: it is required. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * `telform validate`: checks manifests offline and prints every problem at
 * once. It never contacts the API or starts the emulator. Exit 0 when valid (warnings allowed),
 * 1 when not.
 */
export function validateCommand(): Command {
  return addValuesOptions(addSecretFileOption(new Command('validate')))
    .description(
      'Check manifests offline: YAML, every field rule, references, values and (with --check-secrets) secrets. Sends no request.',
    )
    .option('-f, --file <path>', 'manifest file or folder (searched for *.yaml, *.yml); repeatable', collect)
    .option(
      '--accounts <file>',
      'check every account of this accounts file: its manifests with its own values (instead of -f)',
    )
    .addOption(
      new Option(
        '--format <format>',
        'output format: text, json, github (workflow commands that annotate the pull request), gitlab (a code-quality report)',
      )
        .choices(formatChoices('validation', 'accountsValidation'))
        .default('text'),
    )
    .option(
      '--check-secrets',
      'also resolve { fromEnv } and { fromFile } secrets, apply the password rules, and refuse a secret equal to the API auth token in the environment',
    )
    .option(
      '--scope <items>',
      'check against the part of the account the state owns (as state claim --scope: voice, messaging, kinds, prefix=TEXT): documents outside it are errors, and a { ref } into another scope needs no document',
      collect,
    )
    .option(
      '--no-state',
      'judge every object as new: a value that breaks a create rule is an error even where the state records the account holding it',
    )
    .addHelpText(
      'after',
      `
Each problem is printed as
  file:line:col  Kind/name  field: message

Campaigns are also checked by the 10DLC lint (docs/manifests.md, 10DLC lint): content the registry or the
carriers would decline, each finding naming its rule (e.g. sample-names-brand) and the guidance it follows.

Kinds: ${catalog.names.join(', ')}

Examples (examples/ runs as shown on the embedded emulator, and acme.values.yaml is the file
docs/values-and-waves.md writes; other folders, files and addresses stand for your own):
  $ set -a; . examples/demo-secrets.env; set +a                # the demo secrets examples/ reads
  $ telform validate -f examples/
  $ telform validate -f base/ -f prod/trunks.yaml --format json
  $ telform validate -f manifests/ --format github              # in a GitHub Actions step
  $ telform validate -f manifests/ --format gitlab > gl-code-quality-report.json
  $ set -a; . examples/demo-secrets.env; set +a; telform validate -f examples/ --check-secrets
  $ telform validate -f examples/reseller/shared/ --values acme.values.yaml   # a YAML mapping of the values it uses
  $ telform validate --accounts accounts.yaml                    # every account, with its values
  $ telform validate -f messaging/ --scope messaging             # a { ref } to the voice team's trunk is fine

A value that breaks a create rule (an enum, a length, a format, a required field) is a warning only
where the state (--state, as plan finds it; read, never the account) records that object holding that
same value, as an import records it: a create, or a change of the field, would be refused. Elsewhere it
is an error.

Exit codes: 0 valid (warnings allowed), 1 invalid.`,
    )
    .action(async (flags: ValidateFlags, command: Command) => {
      // The program's --state and --workspace: this command's own `state` is the --no-state switch.
      const globals = command.parent?.opts<GlobalOptions>() ?? {};
      const input = inputOrRefuse(parseValidateArguments(flags));
      const options = input.flags;
      const source: ValidateSource =
        input.mode === 'accounts'
          ? { mode: 'accounts', accountsFile: input.accountsFile }
          : { mode: 'one', paths: input.paths, values: options };
      const validation = await validate(
        source,
        {
          checkSecrets: options.checkSecrets === true,
          allowSecretFilesOutside: options.allowSecretFilesOutside === true,
          scope: options.scope ?? [],
          state: options.state === false ? 'off' : { state: globals.state, workspace: globals.workspace },
        },
        { cwd: process.cwd(), env: process.env },
      );
      process.stdout.write(renderValidation(validation, options.format));
      process.exitCode = validation.exitCode;
    });
}

function renderValidation(validation: Validation, format: ValidateFlags['format']): string {
  return validation.mode === 'one'
    ? rendererFor(format, 'validation')(validation.summary)
    : rendererFor(format, 'accountsValidation')(validation.accounts);
}
