import { Command, Option } from 'commander';
import type { ImportLayout } from '../manifest/import-files.js';
import { rendererFor } from '../render/index.js';
import type { GlobalOptions } from '../run/context.js';
import { ExitCode } from '../run/exit-codes.js';
import { importAccount } from '../run/import.js';
import { processIo } from './io.js';
import { addClientOptions } from './client-options.js';
import { collect } from './option-parsers.js';
import { cliContext } from './session.js';
interface ImportOptions {
  kinds: string[];
  out: string;
  layout: ImportLayout;
}

export function importCommand(): Command {
  return addClientOptions(new Command('import'))
    .description(
      "Write manifests for the objects already in the account and record them in the state; changes none of the account's objects (in an account nobody owns yet, it first claims it for this state with telform's ownership marker).",
    )
    .option('--kinds <kind>', 'import only these kinds (repeatable, or comma-separated)', collect, [])
    .option('--out <dir>', 'folder to write the manifests to', 'imported')
    .addOption(
      new Option('--layout <layout>', 'one file per kind, or one per resource')
        .choices(['per-kind', 'per-resource'])
        .default('per-kind'),
    )
    .addHelpText(
      'after',
      `
Secrets cannot be read back from the API: each becomes { fromEnv: TELFORM_SECRET_<KIND>_<NAME>_<FIELD> }.
Set those variables, then \`telform plan\` proposes only setting them (once).
Recording objects in the state is a write: in an account nobody owns, import creates the ownership
marker (a SIP IP ACL named telform-owner:<lineage>) first, as the first apply would.

Examples:
  $ telform import --out manifests/
  $ telform import --kinds Trunk,TrunkIpAcl --layout per-resource --out manifests/trunking/`,
    )
    .action(async (options: ImportOptions, cmd: Command) => {
      process.exitCode = await runImport(options, cmd.optsWithGlobals<GlobalOptions>());
    });
}

async function runImport(options: ImportOptions, globals: GlobalOptions): Promise<number> {
  const io = processIo();
  const result = await importAccount(
    {
      kinds: options.kinds,
      out: options.out,
      layout: options.layout,
      onRead: (kind, count) => {
        if (!globals.quiet) io.stderr(`read ${count} ${kind}`);
      },
    },
    globals,
    cliContext(io),
  );
  io.stdout(
    rendererFor(
      'text',
      'imported',
    )({
      imported: result.imported,
      files: result.files,
      out: options.out,
      skipped: result.skipped,
      refused: result.refused,
    }),
  );
  return ExitCode.ok;
}
