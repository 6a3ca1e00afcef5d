import { Command, Option } from 'commander';
import { loadManifests } from '../manifest/load.js';
import { renderValidationJson, renderValidationText, type ValidationSummary } from '../manifest/report.js';
import { renderValidationGithub, renderValidationGitlab } from '../render/validation-annotations.js';
import { catalog } from '../resources/index.js';
import { ExitCode } from './exit-codes.js';
import { addSecretFileOption, type SecretFileOptionValue } from './plan-command-options.js';

/** `-f` may be repeated; commander calls this once per occurrence. No default: it is required. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const renderers = {
  text: renderValidationText,
  json: renderValidationJson,
  github: renderValidationGithub,
  gitlab: renderValidationGitlab,
} satisfies Record<string, (summary: ValidationSummary) => string>;

interface ValidateOptions extends SecretFileOptionValue {
  file: string[];
  format: keyof typeof renderers;
  checkSecrets?: boolean;
}

/**
 * `telform validate`: checks manifests offline and prints every problem at
 * once. It never contacts the API or starts the emulator. Exit 0 when valid (warnings allowed),
 * 1 when not.
 */
export function validateCommand(): Command {
  return addSecretFileOption(new Command('validate'))
    .description('Check manifests offline: YAML, every field rule, references and (with --check-secrets) secrets. Sends no request.')
    .requiredOption('-f, --file <path>', 'manifest file or folder (searched for *.yaml, *.yml); repeatable', collect)
    .addOption(new Option('--format <format>', 'output format: text, json, github (workflow commands that annotate the pull request), gitlab (a code-quality report)').choices(Object.keys(renderers)).default('text'))
    .option('--check-secrets', 'also resolve { fromEnv } and { fromFile } secrets, apply the password rules, and refuse a secret equal to the API auth token in the environment')
    .addHelpText(
      'after',
      `
Each problem is printed as
  file:line:col  Kind/name  field: message

Kinds: ${catalog.names.join(', ')}

Examples:
  $ telform validate -f examples/
  $ telform validate -f base/ -f prod/trunks.yaml --format json
  $ telform validate -f manifests/ --format github              # in a GitHub Actions step
  $ telform validate -f manifests/ --format gitlab > gl-code-quality-report.json
  $ PBX_PASSWORD=... telform validate -f examples/ --check-secrets

Exit codes: 0 valid (warnings allowed), 1 invalid.`,
    )
    .action(async (options: ValidateOptions) => {
      const result = await loadManifests(options.file, {
        cwd: process.cwd(),
        checkSecrets: options.checkSecrets === true,
        allowSecretFilesOutside: options.allowSecretFilesOutside === true,
      });
      const summary: ValidationSummary = {
        problems: result.problems,
        errorCount: result.errorCount,
        warningCount: result.warningCount,
        resourceCount: result.model.resources.length,
        files: result.model.files,
      };
      process.stdout.write(renderers[options.format](summary));
      process.exitCode = result.errorCount > 0 ? ExitCode.error : ExitCode.ok;
    });
}
