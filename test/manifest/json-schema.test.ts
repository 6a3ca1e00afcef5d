import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderManifestJsonSchema } from '../../src/manifest/json-schema.js';
import { catalog } from '../../src/resources/index.js';

const repository = path.resolve(import.meta.dirname, '../..');

async function exampleFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  // An accounts file (examples/reseller), a test file and a policy file (examples/tests) are not manifests, so they name no manifest schema.
  return entries
    .filter(
      (entry) =>
        entry.isFile() &&
        /\.ya?ml$/.test(entry.name) &&
        entry.name !== 'telform-accounts.yaml' &&
        !/\.(tftest|policy)\.yaml$/.test(entry.name),
    )
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('schemas/manifest.schema.json', () => {
  it('is what the zod schemas generate (run `npm run schemas` after changing a kind)', async () => {
    const committed = await readFile(path.join(repository, 'schemas/manifest.schema.json'), 'utf8');
    expect(committed).toBe(renderManifestJsonSchema(catalog));
  });

  it('switches on kind and carries each kind’s conditional rules', () => {
    const schema = JSON.parse(renderManifestJsonSchema(catalog)) as {
      $schema: string;
      required: string[];
      properties: { kind: { enum: string[] } };
      allOf: Array<{
        if: { properties: { kind: { const: string } } };
        then: { properties: { spec: { allOf?: unknown[]; additionalProperties: boolean } } };
      }>;
    };
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.required).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(schema.properties.kind.enum).toEqual(catalog.names);
    expect(schema.allOf.map((branch) => branch.if.properties.kind.const)).toEqual(catalog.names);
    const trunk = schema.allOf.find((branch) => branch.if.properties.kind.const === 'Trunk');
    expect(trunk?.then.properties.spec.additionalProperties).toBe(false);
    expect(trunk?.then.properties.spec.allOf).toContainEqual({
      if: { properties: { trunk_direction: { enum: ['inbound'] } }, required: ['trunk_direction'] },
      then: { required: ['primary_uri_uuid'] },
      description: 'an inbound trunk sends calls to its primary origination URI',
    });
    const uri = schema.allOf.find((branch) => branch.if.properties.kind.const === 'OriginationUri');
    // authentication_needed defaults to false, so "false" holds when the field is absent.
    expect(uri?.then.properties.spec.allOf).toContainEqual({
      if: { properties: { authentication_needed: { enum: [false] } } },
      then: { properties: { username: false, password: false } },
      description: 'it is used only when authentication_needed is true',
    });
  });

  it('is named by the yaml-language-server comment at the top of every example', async () => {
    const files = await exampleFiles(path.join(repository, 'examples'));
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const first = (await readFile(file, 'utf8')).split('\n')[0];
      const relative = path
        .relative(path.dirname(file), path.join(repository, 'schemas/manifest.schema.json'))
        .split(path.sep)
        .join('/');
      expect(first, file).toBe(`# yaml-language-server: $schema=${relative}`);
    }
  });
});
