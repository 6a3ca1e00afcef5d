import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { ownManifestSchema, schemaReference } from '../../src/manifest/schema-reference.js';

/** The schema an imported manifest names must resolve on every machine that clones the repository. */
let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'telform-schema-ref-'));
  // A repository that commits the schema, and one that does not (telform installed in node_modules).
  await mkdir(path.join(root, 'with/.git'), { recursive: true });
  await mkdir(path.join(root, 'with/schemas'), { recursive: true });
  await writeFile(path.join(root, 'with/schemas/manifest.schema.json'), '{}');
  await mkdir(path.join(root, 'without/.git'), { recursive: true });
  await mkdir(path.join(root, 'without/node_modules/telform/schemas'), { recursive: true });
  await writeFile(path.join(root, 'without/node_modules/telform/schemas/manifest.schema.json'), '{}');
  // Above the repository root: not committed with it.
  await mkdir(path.join(root, 'schemas'), { recursive: true });
  await writeFile(path.join(root, 'schemas/manifest.schema.json'), '{}');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('schemaReference', () => {
  it('points at the schema committed in the same repository, relative to the output folder', () => {
    expect(schemaReference(path.join(root, 'with/manifests/prod'))).toBe('../../schemas/manifest.schema.json');
  });

  it('else finds none (import then writes its own), never a path into an install nor a URL', () => {
    expect(schemaReference(path.join(root, 'without/manifests'))).toBeUndefined();
    expect(ownManifestSchema()).toBe(readFileSync('schemas/manifest.schema.json', 'utf8'));
  });
});
