import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import type { LedgerStore } from '../engine/ledger-store.js';
import { openState } from './state-location.js';
import { TelformError } from '../errors.js';
import { emitManifest } from '../manifest/emit.js';
import { ownPackageVersion, schemaReference } from '../manifest/schema-reference.js';
import { importResources, type ImportedResource } from '../manifest/account-import.js';
import { catalog, type Kind } from '../resources/index.js';
import { processIo, terminalStatus } from './io.js';
import { addClientOptions } from './client-options.js';
import { collect } from './option-parsers.js';
import { openSession, type GlobalOptions } from './session.js';

interface ImportOptions {
  kinds: string[];
  out: string;
  layout: 'per-kind' | 'per-resource';
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
      const lists = await Promise.all(
        kinds.map(async (kind) => {
          const objects = await kind.live.list({ client: session.client });
          if (!globals.quiet) io.stderr(`read ${objects.length} ${kind.name}`);
          return [kind.name, objects] as const;
        }),
      );
      const imported = importResources(kinds, new Map(lists));
      assertNoLedgerConflict(imported, store);
      const files = layoutFiles(imported, options, kinds);
      const taken = [...files.keys()].filter((file) => existsSync(file));
      if (taken.length > 0) {
        throw new TelformError('import_overwrite', `not overwriting ${taken.map((file) => path.relative(io.cwd, file)).join(', ')}; choose another --out folder or move them away`);
      }
      for (const [file, resources] of files) {
        await mkdir(path.dirname(file), { recursive: true });
        const schema = schemaReference(path.dirname(file), ownPackageVersion());
        await writeFile(file, emitManifest(resources.map(toEmitted), schema));
      }
      for (const resource of imported) {
        await store.recordResult(resource.address, {
          kind: resource.kind,
          name: resource.name,
          id: resource.id,
          applied_spec: resource.appliedSpec,
          secrets: {},
          updated_at: store.timestamp(),
        });
      }
      report(imported, files.size, options.out, io.stdout);
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

/** An address already managed under another id would make the import lie about ownership. */
function assertNoLedgerConflict(imported: readonly ImportedResource[], store: LedgerStore): void {
  const conflicts = imported.filter((resource) => {
    const entry = store.ledger.resources[resource.address];
    return entry !== undefined && entry.id !== resource.id;
  });
  if (conflicts.length > 0) {
    throw new TelformError(
      'import_conflict',
      `the state already manages ${conflicts.map((resource) => resource.address).join(', ')} under other ids; import into a new --state file or remove those entries with telform state rm`,
    );
  }
}

function fileBase(kind: string): string {
  return kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
}

function layoutFiles(imported: readonly ImportedResource[], options: ImportOptions, kinds: readonly Kind[]): Map<string, ImportedResource[]> {
  const out = path.resolve(options.out);
  const files = new Map<string, ImportedResource[]>();
  for (const kind of kinds) {
    for (const resource of imported.filter((item) => item.kind === kind.name)) {
      const file = options.layout === 'per-kind' ? path.join(out, `${fileBase(kind.name)}.yaml`) : path.join(out, fileBase(kind.name), `${resource.name}.yaml`);
      const list = files.get(file) ?? [];
      list.push(resource);
      files.set(file, list);
    }
  }
  return files;
}

function toEmitted(resource: ImportedResource) {
  const comments = [`imported from id ${resource.id}`];
  for (const [field, variable] of Object.entries(resource.secretVariables)) {
    comments.push(`${field}: the API never returns it; set ${variable} before plan or apply`);
  }
  return { kind: resource.kind, name: resource.name, spec: resource.manifestSpec, comments };
}

function report(imported: readonly ImportedResource[], fileCount: number, out: string, write: (text: string) => void): void {
  const lines = [`Imported ${imported.length} resource${imported.length === 1 ? '' : 's'} into ${out} (${fileCount} file${fileCount === 1 ? '' : 's'}) and recorded them in the state.`];
  const madeUp = imported.filter((resource) => resource.madeUpName);
  if (madeUp.length > 0) {
    lines.push(`Names made up for ${madeUp.length} object${madeUp.length === 1 ? '' : 's'} (spec keeps the live name):`);
    for (const resource of madeUp) lines.push(`  ${resource.madeUpName}`);
  }
  const variables = imported.flatMap((resource) => Object.values(resource.secretVariables));
  if (variables.length > 0) {
    lines.push(`Secrets to provide before plan or apply (${variables.length}):`);
    for (const variable of variables) lines.push(`  ${variable}`);
  }
  write(`${lines.join('\n')}\n`);
}
