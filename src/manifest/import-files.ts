import path from 'node:path';
import type { Kind } from '../resources/kind.js';
import type { ImportedResource } from './account-import.js';
import { emitDocuments } from './emit.js';

/**
 * Where `telform import` writes what it imported: one file per kind (`trunk-ip-acl.yaml`) or one
 * per resource (`trunk-ip-acl/office.yaml`) under the output folder, kinds in catalog order, and
 * each file's manifest text with a comment naming the live id and the secrets to provide.
 */
export type ImportLayout = 'per-kind' | 'per-resource';

function fileBase(kind: string): string {
  return kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
}

/** The files to write (absolute paths), each with its resources in order. */
export function importFiles(
  imported: readonly ImportedResource[],
  outFolder: string,
  layout: ImportLayout,
  kinds: readonly Kind[],
): Map<string, ImportedResource[]> {
  const out = path.resolve(outFolder);
  const files = new Map<string, ImportedResource[]>();
  const byKind = new Map<string, ImportedResource[]>();
  for (const resource of imported) {
    const list = byKind.get(resource.kind);
    if (list) list.push(resource);
    else byKind.set(resource.kind, [resource]);
  }
  for (const kind of kinds) {
    const resources = byKind.get(kind.name);
    if (!resources) continue;
    if (layout === 'per-kind') {
      files.set(path.join(out, `${fileBase(kind.name)}.yaml`), resources);
      continue;
    }
    const folder = path.join(out, fileBase(kind.name));
    for (const resource of resources) {
      const file = path.join(folder, `${resource.name}.yaml`);
      const list = files.get(file) ?? [];
      list.push(resource);
      files.set(file, list);
    }
  }
  return files;
}

/** Each resource's document (its comments, no schema line); a file is its resources' documents, joined (`joinDocuments`). */
export function importedDocuments(resources: readonly ImportedResource[]): Promise<string[]> {
  return emitDocuments(resources.map(toEmitted));
}

function toEmitted(resource: ImportedResource) {
  const comments = [`imported from id ${resource.id}`];
  for (const [field, variable] of Object.entries(resource.secretVariables)) {
    comments.push(`${field}: the API never returns it; set ${variable} before plan or apply`);
  }
  return { kind: resource.kind, name: resource.name, spec: resource.manifestSpec, comments };
}
