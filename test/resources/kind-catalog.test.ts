import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { fieldsNamedBy } from '../../src/manifest/rules.js';
import { createKindCatalog, catalog } from '../../src/resources/index.js';
import type { Kind } from '../../src/resources/kind.js';
import { loadManifests } from '../../src/manifest/load.js';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { checkSeedShape, locateInObject } from '../../src/emulator/seed.js';
import { decidedKinds } from '../../src/resources/registration.js';

const repository = path.resolve(import.meta.dirname, '../..');
const stateAndSafety = readFileSync(path.join(repository, 'docs/state-and-safety.md'), 'utf8').replace(/\s+/g, ' ');

describe('the kind catalog', () => {
  it('holds the kinds of docs/manifests.md; docs/state-and-safety.md, in dependency order', () => {
    expect(catalog.names).toEqual([
      'SipCredential',
      'SipIpAcl',
      'TrunkCredential',
      'TrunkIpAcl',
      'OriginationUri',
      'Trunk',
      'Profile',
      'Brand',
      'Campaign',
      'PhoneNumber',
      'ApplicationSipAuth',
    ]);
    const position = new Map(catalog.names.map((name, index) => [name, index]));
    for (const kind of catalog.kinds) {
      for (const target of Object.values(kind.references))
        expect(position.get(target), `${kind.name} → ${target}`).toBeLessThan(position.get(kind.name) as number);
    }
  });

  it('refuses a kind registered twice', () => {
    const trunk = catalog.get('Trunk') as Kind;
    expect(() => createKindCatalog([trunk, trunk])).toThrow('kind Trunk is registered twice');
  });

  it('refuses a reference to a kind it does not hold', () => {
    const trunk = catalog.get('Trunk') as Kind;
    expect(() => createKindCatalog([trunk])).toThrow('kind Trunk: ipacl_uuid refers to unknown kind TrunkIpAcl');
  });
});

// The template test every kind passes.
describe.each(catalog.kinds.map((kind) => [kind.name, kind] as const))('kind %s', (name, kind) => {
  const shape = kind.spec.shape;

  it('has a one-line description and a strict spec', () => {
    expect(kind.description).toMatch(/^[A-Z].*\.$/);
    expect(kind.description).not.toContain('\n');
    expect(
      kind.spec.safeParse({ surely_not_a_field: 1 }).error?.issues.some((issue) => issue.code === 'unrecognized_keys'),
    ).toBe(true);
  });

  it('names only fields of its spec in its data', () => {
    const named = [
      ...(kind.nameField === undefined ? [] : [kind.nameField]),
      ...Object.keys(kind.references),
      ...Object.keys(kind.secrets),
      ...Object.keys(kind.setFields),
      ...kind.uniqueFields.map((field) => field.split('.')[0] as string),
      ...kind.rules.flatMap(fieldsNamedBy),
    ];
    for (const field of named) expect(Object.keys(shape), `${name}.${field}`).toContain(field);
  });

  it('keeps its API name field optional, as it defaults to metadata.name', () => {
    if (kind.nameField === undefined) return;
    expect(shape[kind.nameField]?.safeParse(undefined).success).toBe(true);
  });

  it('converts to JSON Schema', () => {
    expect(() => z.toJSONSchema(kind.spec, { target: 'draft-7', io: 'input', unrepresentable: 'throw' })).not.toThrow();
  });

  it('is used by the examples', async () => {
    const result = await loadManifests(['examples/'], { cwd: repository, env: {} });
    expect(result.model.resources.some((resource) => resource.kind === name)).toBe(true);
  });
});

// The facts a kind declares for the generic code that needs a kind: each is required by the type
// (`Kind`), and these say each one is also right, so a new kind that leaves one out or gets it wrong fails here.
describe.each(catalog.kinds.map((kind) => [kind.name, kind] as const))('kind %s declares', (name, kind) => {
  it('its scope: a two-letter code and a preset docs/state-and-safety.md lists', () => {
    expect(kind.scope.code).toMatch(/^[a-z]{2}$/);
    expect(stateAndSafety, `preset ${kind.scope.preset}`).toContain(`\`${kind.scope.preset}\` (`);
    const listed = new RegExp(`\`${kind.scope.preset}\` \\(([^)]*)\\)`).exec(stateAndSafety)?.[1];
    expect(listed?.split(', '), `docs/state-and-safety.md lists ${name} in ${kind.scope.preset}`).toContain(name);
  });

  it('its snapshot: a collection the emulator seeds, listed at a path, kept with its id', () => {
    const { snapshot } = kind;
    const seed =
      snapshot.seed === 'existing' ? { existing: { [snapshot.collection]: [] } } : { [snapshot.collection]: [] };
    expect(() => checkSeedShape(seed, locateInObject)).not.toThrow();
    expect(snapshot.path).toMatch(/^\/[A-Za-z0-9/]+\/$/);
    const record = { [snapshot.idField]: 'ID1' };
    const kept = snapshot.fields[snapshot.idField] === 'text' ? { [snapshot.idField]: 'ID1' } : {};
    const held = snapshot.project ? snapshot.project(record, kept) : kept;
    expect(JSON.stringify(held), `${name} keeps ${snapshot.idField}`).toContain('ID1');
  });

  it('its registry decision: a vetted kind is one a test may approve or decline, by its callback id field', () => {
    expect(decidedKinds([kind])).toEqual(kind.registry?.vetted ? [name] : []);
    if (kind.registry?.vetted) expect(kind.registry.callback.idField).toMatch(/^[a-z_]+$/);
  });
});
