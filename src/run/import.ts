// The import operation: reads the account's objects of the kinds asked for (through one live
// context, so the numbers every trunk and campaign read counts are listed once), writes manifests
// for them and records them in the ledger, changing nothing in the account.
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ImportedResource } from '../manifest/account-import.js';
import { documentOf, importExpressible, type RefusedImport } from './import-check.js';
import { joinDocuments } from '../manifest/emit.js';
import { importFiles, type ImportLayout } from '../manifest/import-files.js';
import { ownManifestSchema, ownSchemaPath, schemaReference } from '../manifest/schema-reference.js';
import { catalog, type Kind } from '../resources/index.js';
import { liveContext, type LiveContext, type LiveObject } from '../resources/live-side.js';
import { ApiRequestError } from '../api/errors.js';
import { readMarkerReading } from '../resources/ownership-marker.js';
import { assertImportOwnership, ownedAmong, ownedIdsByKind } from '../state/import-ownership.js';
import { assertMayWrite, claimOnFirstWrite, claimsOnWrite, ledgerScope, ownershipOf } from '../state/ownership.js';
import { TelformError } from '../util/errors.js';
import { describeScope, scopeHasKind, scopeHolds } from '../resources/ownership-scope.js';
import type { GlobalOptions, RunContext } from './context.js';
import { openState } from './state-location.js';
import { checkOutputFolder, outputGuard, writeOutputFile } from './output-file.js';

export interface ImportRun {
  /** Kind names (empty: every kind). */
  kinds: readonly string[];
  /** The folder to write the manifests to. */
  out: string;
  layout: ImportLayout;
  /** Called with each kind's count once it is read. */
  onRead?: (kind: string, count: number) => void;
}

export interface ImportResult {
  imported: ImportedResource[];
  /** How many files were written. */
  files: number;
  /** Addresses of objects the state manages already, left to its manifests. */
  skipped: string[];
  /** Objects left out because their manifest would not validate: neither written nor recorded. */
  refused: RefusedImport[];
}

/**
 * A kind's list, or, when the account refuses it with 403 (a product it lacks, or its permissions) and
 * `--kinds` did not name it, the one note that says it was skipped: an import of everything imports
 * what the account lets it read (docs/real-accounts.md, What a run reads).
 */
async function listUnlessRefused(
  kind: Kind,
  live: LiveContext,
  named: boolean,
): Promise<{ objects: LiveObject[]; refused?: undefined } | { objects?: undefined; refused: string }> {
  try {
    return { objects: await kind.live.list(live) };
  } catch (error) {
    if (named || !(error instanceof ApiRequestError && error.status === 403)) throw error;
    return {
      refused: `note: ${kind.name} was not imported: the API answered 403 to ${error.request.method} ${error.request.path}: ${error.apiMessage}`,
    };
  }
}

/** The kinds `--kinds` names (every kind when none), in catalog order; an unknown name is refused. */
export function selectKinds(requested: readonly string[]): Kind[] {
  const names = requested
    .flatMap((item) => item.split(','))
    .map((item) => item.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !catalog.get(name));
  if (unknown.length > 0)
    throw new TelformError(
      'bad_option',
      `--kinds ${unknown.join(', ')}: not a kind (kinds: ${catalog.names.join(', ')})`,
    );
  return catalog.kinds.filter((kind) => names.length === 0 || names.includes(kind.name));
}

export async function importAccount(
  run: ImportRun,
  globals: GlobalOptions,
  context: RunContext,
): Promise<ImportResult> {
  const { io } = context;
  const kinds = selectKinds(run.kinds);
  const guard = outputGuard('--out', [], globals, context);
  await checkOutputFolder(run.out, guard);
  const session = await context.connect(globals, io);
  try {
    const store = await openState(globals, io.env, {
      binding: { endpoint: session.endpointLabel, account: session.account },
      lock: true,
      notify: io.stderr,
    });
    try {
      const live = liveContext(session.client);
      // Recording objects is writing: only the account's owner imports (any ledger, while nobody has
      // claimed it). Asked first, so an owned account is refused before any of its lists is read.
      const ownership = ownershipOf(
        (await readMarkerReading(live)).markers,
        store.ledger.lineage,
        ledgerScope(store.ledger),
      );
      assertMayWrite(ownership, store, session.account, 'import');
      // Only the part of the account the state owns: another scope's objects are not imported.
      const scope = ledgerScope(store.ledger);
      const outside = kinds.filter((kind) => !scopeHasKind(scope, kind.name));
      if (run.kinds.length > 0 && outside.length > 0) {
        throw new TelformError(
          'out_of_scope',
          `--kinds ${outside.map((kind) => kind.name).join(', ')}: outside the scope this state owns (${describeScope(scope)}); import them with the state that owns them`,
        );
      }
      const lists = await Promise.all(
        kinds
          .filter((kind) => scopeHasKind(scope, kind.name))
          .map(async (kind) => {
            // A kind `--kinds` names must be read; in an import of everything, a refused list is skipped.
            const read = await listUnlessRefused(kind, live, run.kinds.length > 0);
            if (read.refused !== undefined) {
              io.stderr(read.refused);
              return [kind.name, [] as LiveObject[]] as const;
            }
            const objects = read.objects.filter((object) => {
              const name = kind.nameField === undefined ? undefined : object.spec[kind.nameField];
              return scopeHolds(scope, kind.name, typeof name === 'string' ? name : undefined);
            });
            run.onRead?.(kind.name, objects.length);
            return [kind.name, objects] as const;
          }),
      );
      const listed = new Map(lists);
      const skipped = ownedAmong(listed, store.ledger);
      const { imported, refused, documents } = await importExpressible(kinds, listed, ownedIdsByKind(store.ledger));
      assertImportOwnership(imported, store.ledger);
      const files = importFiles(imported, path.resolve(io.cwd, run.out), run.layout, kinds);
      const taken = await existingFiles([...files.keys()]);
      if (taken.length > 0) {
        throw new TelformError(
          'import_overwrite',
          `not overwriting ${taken.map((file) => path.relative(io.cwd, file)).join(', ')}; choose another --out folder or move them away`,
        );
      }
      // An import that records objects in an account nobody owns claims it first (as an apply does).
      if (imported.length > 0 && claimsOnWrite(ownership, store.ledger))
        await claimOnFirstWrite(store, live, session.account, 'import');
      // No schema committed in the repository: this version's, beside the manifests, so every clone resolves it.
      const out = path.resolve(io.cwd, run.out);
      if (files.size > 0 && schemaReference(out) === undefined) {
        await mkdir(path.dirname(ownSchemaPath(out)), { recursive: true });
        await writeOutputFile(ownSchemaPath(out), guard, ownManifestSchema());
      }
      // Each folder is made and its schema found once; each file is one write of the documents validated above.
      const schemas = new Map<string, string>();
      for (const folder of new Set([...files.keys()].map((file) => path.dirname(file)))) {
        await mkdir(folder, { recursive: true });
        schemas.set(
          folder,
          schemaReference(folder) ?? path.relative(folder, ownSchemaPath(out)).split(path.sep).join('/'),
        );
      }
      await inParallel([...files], writesInFlight, ([file, resources]) =>
        writeOutputFile(
          file,
          guard,
          joinDocuments(
            resources.map((resource) => documentOf(documents, resource)),
            schemas.get(path.dirname(file)) ?? '',
          ),
        ),
      );
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
      return { imported, files: files.size, skipped, refused };
    } finally {
      await store.close();
    }
  } finally {
    await session.close();
  }
}

/** Files written at once: enough to keep the disk busy, few enough to stay clear of the open-file limit. */
const writesInFlight = 16;

async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/**
 * Which of `files` exist, in their order: one listing per folder instead of a look-up per file (one per
 * resource with `--layout per-resource`). A listed name is looked up still, so a link is judged as before.
 */
async function existingFiles(files: readonly string[]): Promise<string[]> {
  const listings = new Map<string, Promise<ReadonlySet<string> | undefined>>();
  const listing = (folder: string) => {
    let names = listings.get(folder);
    if (!names) {
      // A folder that cannot be listed (missing, not a folder, unreadable): each file is looked up as before.
      names = readdir(folder).then(
        // Lower-cased: a file system that ignores case holds `Trunk.yaml` where `trunk.yaml` is asked for.
        (entries) => new Set(entries.map((entry) => entry.toLowerCase())),
        () => undefined,
      );
      listings.set(folder, names);
    }
    return names;
  };
  const taken: string[] = [];
  for (const file of files) {
    const names = await listing(path.dirname(file));
    if ((names === undefined || names.has(path.basename(file).toLowerCase())) && existsSync(file)) taken.push(file);
  }
  return taken;
}
