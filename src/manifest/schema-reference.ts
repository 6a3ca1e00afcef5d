import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The `$schema` an imported manifest names, so that an editor validates it on every machine that
 * clones the repository it is committed to (the path to the telform install that wrote it would be
 * wrong on all the others): a `schemas/manifest.schema.json` committed in the same repository as
 * the output (walking up from the output folder to the repository root, never into node_modules),
 * as a relative path; undefined when there is none, and then `import` writes this version's schema
 * into the output folder (`schemas/manifest.schema.json`). Never a URL on a public CDN for the
 * package's name: whoever holds that name there would choose what every editor loads.
 */
export function schemaReference(outputFolder: string): string | undefined {
  let folder = path.resolve(outputFolder);
  for (;;) {
    const candidate = path.join(folder, 'schemas', 'manifest.schema.json');
    if (!folder.split(path.sep).includes('node_modules') && existsSync(candidate)) {
      return path.relative(path.resolve(outputFolder), candidate).split(path.sep).join('/');
    }
    const parent = path.dirname(folder);
    // The repository's root (or the file system's) ends the walk: nothing above it is committed with it.
    if (existsSync(path.join(folder, '.git')) || parent === folder) break;
    folder = parent;
  }
  return undefined;
}

/** Where `import` writes the schema when the repository commits none, under its output folder. */
export function ownSchemaPath(outputFolder: string): string {
  return path.join(outputFolder, 'schemas', 'manifest.schema.json');
}

/** The manifest schema of this telform (its `schemas/`, shipped in the package and the checkout). */
export function ownManifestSchema(): string {
  return readFileSync(new URL('../../schemas/manifest.schema.json', import.meta.url), 'utf8');
}

/** The version of the telform package this code belongs to (package.json two folders above). */
export function ownPackageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version?: unknown;
  };
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
