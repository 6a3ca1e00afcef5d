import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { assertImportOwnership, ownedAmong, ownedIdsByKind } from '../state/import-ownership.js';
import { readOwnershipMarkers } from '../resources/ownership-marker.js';
import { assertMayWrite, ownershipOf } from '../state/ownership.js';
import type { LiveContext } from '../resources/live-side.js';
import { openState } from './state-location.js';
import { TelformError } from '../util/errors.js';
import { ownPackageVersion, schemaReference } from '../manifest/schema-reference.js';
import { importResources } from '../manifest/account-import.js';
import { importedManifest, importFiles, type ImportLayout } from '../manifest/import-files.js';
import { renderImportReport } from '../render/import.js';
import { catalog, type Kind } from '../resources/index.js';
import { processIo, terminalStatus } from './io.js';
import { addClientOptions } from './client-options.js';
import { collect } from './option-parsers.js';
import { openSession, type GlobalOptions } from './session.js';

interface ImportOptions {
  kinds: string[];
  out: string;
  layout: ImportLayout;
}


export function importCommand(): Command {
  return addClientOptions(new Command('import'))
    .description('Write manifests for the objects already in the account and record them in the state; changes nothing in the account.')
    .option('--kinds <kind>', 'import only these kinds (repeatable, or comma-separated)', collect, [])
    .option('--out <dir>', 'folder to write the manifests to', 'imported')
    .addOption(new Option('--layout <layout>', 'one file per kind, or one per resource').choices(['per-kind', 'per-resource']).default('per-kind'))
    .addHelpText(
      'after',
      `
Secrets cannot be read back from the API: each becomes { fromEnv: TELFORM_SECRET_<KIND>_<NAME>_<FIELD> }.
Set those variables, then \`telform plan\` proposes only setting them (once).

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
  const kinds = selectKinds(options.kinds);
  const session = await openSession(globals, { env: io.env, note: io.stderr, logHttp: io.stderr, ...terminalStatus() });
  try {
    const store = await openState(globals, io.env, { binding: { endpoint: session.endpointLabel, account: session.account }, lock: true });
    try {
      const live: LiveContext = { client: session.client, memo: new Map() };
      const lists = await Promise.all(
        kinds.map(async (kind) => {
          const objects = await kind.live.list(live);
          if (!globals.quiet) io.stderr(`read ${objects.length} ${kind.name}`);
          return [kind.name, objects] as const;
        }),
      );
      // Recording objects is writing: only the account's owner imports (any ledger, while nobody has claimed it).
      assertMayWrite(ownershipOf(await readOwnershipMarkers(live), store.ledger.lineage), store, session.account, 'import');
      const listed = new Map(lists);
      const skipped = ownedAmong(listed, store.ledger);
      const imported = importResources(kinds, listed, ownedIdsByKind(store.ledger));
      assertImportOwnership(imported, store.ledger);
      const files = importFiles(imported, options.out, options.layout, kinds);
      const taken = [...files.keys()].filter((file) => existsSync(file));
      if (taken.length > 0) {
        throw new TelformError('import_overwrite', `not overwriting ${taken.map((file) => path.relative(io.cwd, file)).join(', ')}; choose another --out folder or move them away`);
      }
      for (const [file, resources] of files) {
        await mkdir(path.dirname(file), { recursive: true });
        const schema = schemaReference(path.dirname(file), ownPackageVersion());
        await writeFile(file, importedManifest(resources, schema));
      }
      // Recorded together: the journal appends and syncs them in one write, not one sync each.
      await Promise.all(
        imported.map((resource) =>
          store.recordResult(resource.address, {
            kind: resource.kind,
            name: resource.name,
            id: resource.id,
            applied_spec: resource.appliedSpec,
            secrets: {},
            updated_at: store.timestamp(),
          }),
        ),
      );
      io.stdout(renderImportReport(imported, files.size, options.out, skipped));
      return 0;
    } finally {
      await store.close();
    }
  } finally {
    await session.close();
  }
}

function selectKinds(requested: string[]): Kind[] {
  const names = requested.flatMap((item) => item.split(',')).map((item) => item.trim()).filter(Boolean);
  const unknown = names.filter((name) => !catalog.get(name));
  if (unknown.length > 0) throw new TelformError('bad_option', `--kinds ${unknown.join(', ')}: not a kind (kinds: ${catalog.names.join(', ')})`);
  return catalog.kinds.filter((kind) => names.length === 0 || names.includes(kind.name));
}
