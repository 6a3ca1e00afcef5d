// The import operation: reads the account's objects of the kinds asked for (through one live
// context, so the numbers every trunk and campaign read counts are listed once), writes manifests
// for them and records them in the ledger, changing nothing in the account.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ImportedResource } from '../manifest/account-import.js';
import { importExpressible, type RefusedImport } from './import-check.js';
import { importedManifest, importFiles, type ImportLayout } from '../manifest/import-files.js';
import { ownManifestSchema, ownSchemaPath, schemaReference } from '../manifest/schema-reference.js';
import { catalog, type Kind } from '../resources/index.js';
import { liveContext } from '../resources/live-side.js';
import { readMarkerReading } from '../resources/ownership-marker.js';
import { assertImportOwnership, ownedAmong, ownedIdsByKind } from '../state/import-ownership.js';
import { assertMayWrite, claimOnFirstWrite, claimsOnWrite, ledgerScope, ownershipOf } from '../state/ownership.js';
import { TelformError } from '../util/errors.js';
import { describeScope, scopeHasKind, scopeHolds } from '../resources/ownership-scope.js';
import type { GlobalOptions, RunContext } from './context.js';
import { openState } from './state-location.js';

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
  const session = await context.connect(globals, io);
  try {
    const store = await openState(globals, io.env, {
      binding: { endpoint: session.endpointLabel, account: session.account },
      lock: true,
      notify: io.stderr,
    });
    try {
      const live = liveContext(session.client);
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
            const objects = (await kind.live.list(live)).filter((object) => {
              const name = kind.nameField === undefined ? undefined : object.spec[kind.nameField];
              return scopeHolds(scope, kind.name, typeof name === 'string' ? name : undefined);
            });
            run.onRead?.(kind.name, objects.length);
            return [kind.name, objects] as const;
          }),
      );
      // Recording objects is writing: only the account's owner imports (any ledger, while nobody has claimed it).
      const ownership = ownershipOf(
        (await readMarkerReading(live)).markers,
        store.ledger.lineage,
        ledgerScope(store.ledger),
      );
      assertMayWrite(ownership, store, session.account, 'import');
      const listed = new Map(lists);
      const skipped = ownedAmong(listed, store.ledger);
      const { imported, refused } = await importExpressible(kinds, listed, ownedIdsByKind(store.ledger));
      assertImportOwnership(imported, store.ledger);
      const files = importFiles(imported, path.resolve(io.cwd, run.out), run.layout, kinds);
      const taken = [...files.keys()].filter((file) => existsSync(file));
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
        await writeFile(ownSchemaPath(out), ownManifestSchema());
      }
      for (const [file, resources] of files) {
        await mkdir(path.dirname(file), { recursive: true });
        const schema =
          schemaReference(path.dirname(file)) ??
          path.relative(path.dirname(file), ownSchemaPath(out)).split(path.sep).join('/');
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
      return { imported, files: files.size, skipped, refused };
    } finally {
      await store.close();
    }
  } finally {
    await session.close();
  }
}
