// `import` never writes a manifest `validate` rejects (docs/real-accounts.md): the documents an
// import would write are validated as `validate` does; an object whose document fails is left out,
// said per object with the first reason, and the rest is imported again without it (its referrers
// keep its id as a literal), until what is left validates.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { importResources, type ImportedResource, type OwnedIds } from '../manifest/account-import.js';
import { joinDocuments } from '../manifest/emit.js';
import { importedDocuments, importFiles } from '../manifest/import-files.js';
import { findingProblem, lintCampaigns } from '../manifest/campaign-lint.js';
import { loadManifests } from '../manifest/load.js';
import type { Kind } from '../resources/index.js';
import type { LiveObject } from '../resources/live-side.js';

/** An object the import could not write as a manifest `validate` accepts. */
export interface RefusedImport {
  address: string;
  id: string;
  /** The first error `validate` gave for its document, with the field. */
  reason: string;
}

/** Rounds of leaving objects out: each round can only leave out more, so a few always settle it. */
const maxRounds = 5;

export async function importExpressible(
  kinds: readonly Kind[],
  listed: ReadonlyMap<string, readonly LiveObject[]>,
  owned: OwnedIds,
): Promise<{
  imported: ImportedResource[];
  refused: RefusedImport[];
  documents: ReadonlyMap<ImportedResource, string>;
}> {
  const refused: RefusedImport[] = [];
  const left = new Map<string, Set<string>>();
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-import-check-'));
  try {
    for (let round = 1; ; round += 1) {
      const lists = new Map(
        [...listed].map(([kind, objects]) => [kind, objects.filter((object) => !left.get(kind)?.has(object.id))]),
      );
      const imported = importResources(kinds, lists, owned);
      // Each document is written once: what is validated is what import writes.
      const texts = await importedDocuments(imported);
      const documents = new Map(imported.map((resource, index) => [resource, texts[index]!]));
      const failures = await validateImported(imported, documents, kinds, path.join(folder, String(round)));
      if (failures.size === 0 || round === maxRounds) {
        // Should a last round still fail, none of it is written rather than a folder validate rejects.
        if (failures.size > 0)
          return {
            imported: [],
            documents: new Map(),
            refused: [
              ...refused,
              ...imported.map((resource) =>
                refusal(resource, failures.get(resource.address) ?? 'a document it refers to cannot be written'),
              ),
            ],
          };
        return { imported, refused, documents };
      }
      for (const resource of imported) {
        const reason = failures.get(resource.address);
        if (reason === undefined) continue;
        refused.push(refusal(resource, reason));
        const ids = left.get(resource.kind) ?? new Set<string>();
        ids.add(resource.id);
        left.set(resource.kind, ids);
      }
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

function refusal(resource: ImportedResource, reason: string): RefusedImport {
  return { address: resource.address, id: resource.id, reason };
}

/**
 * Writes the documents, one file per kind (one write each), and validates them as `validate` would:
 * the first error per address. A document's problems carry its address whichever file holds it.
 */
async function validateImported(
  imported: readonly ImportedResource[],
  documents: ReadonlyMap<ImportedResource, string>,
  kinds: readonly Kind[],
  folder: string,
): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  if (imported.length === 0) return failures;
  const files = importFiles(imported, folder, 'per-kind', kinds);
  await mkdir(folder, { recursive: true });
  await Promise.all(
    [...files].map(([file, resources]) =>
      writeFile(
        file,
        joinDocuments(
          resources.map((resource) => documentOf(documents, resource)),
          'manifest.schema.json',
        ),
      ),
    ),
  );
  // Offline, as validate is: secrets are not resolved, values are not given.
  const result = await loadManifests([folder], { cwd: folder, env: {} });
  const lint = lintCampaigns(result.model.resources).map(findingProblem);
  for (const problem of [...result.problems, ...lint]) {
    if (problem.severity !== 'error' || problem.address === undefined || failures.has(problem.address)) continue;
    failures.set(problem.address, problem.field ? `${problem.field}: ${problem.message}` : problem.message);
  }
  return failures;
}

/** The document `importExpressible` wrote for a resource it returned. */
export function documentOf(documents: ReadonlyMap<ImportedResource, string>, resource: ImportedResource): string {
  const text = documents.get(resource);
  if (text === undefined) throw new Error(`internal: no document was written for ${resource.address}`);
  return text;
}
