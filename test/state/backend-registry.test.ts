import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileBackend } from '../../src/state/backends/file.js';
import { backendFor, openStateBackend, stateBackends } from '../../src/state/backends/registry.js';

describe('state backend registry', () => {
  it('names each backend once, the file last (it takes any path)', () => {
    expect(stateBackends.map((kind) => kind.name)).toEqual(['postgres', 'file']);
    expect(new Set(stateBackends.map((kind) => kind.name)).size).toBe(stateBackends.length);
  });

  it('tells a database URL from a path', () => {
    expect(backendFor('postgres://telform@db:5432/telform').name).toBe('postgres');
    expect(backendFor('POSTGRESQL://telform@db/telform').name).toBe('postgres');
    expect(backendFor('states/acme.json').name).toBe('file');
    expect(backendFor('postgres.json').name).toBe('file');
  });

  it('describes and names a location without its secrets', () => {
    const database = { state: 'postgres://telform:s3cret@db:5432/telform?sslpassword=k3y', workspace: 'acme' };
    const kind = backendFor(database.state);
    expect(kind.describe(database)).toBe('postgres://telform:***@db:5432/telform?sslpassword=*** (workspace acme)');
    expect(kind.flags(database)).toBe(
      '--state postgres://telform:***@db:5432/telform?sslpassword=*** --workspace acme',
    );
    const file = { state: 'states/acme.json', workspace: 'default' };
    expect(backendFor(file.state).describe(file)).toBe('states/acme.json');
    expect(backendFor(file.state).flags(file)).toBe('--state states/acme.json');
  });

  it('resolves a path written in an accounts file against its folder, never a URL', () => {
    expect(backendFor('states/a.json').resolveFrom('/srv/fleet', 'states/a.json')).toBe(
      path.resolve('/srv/fleet', 'states/a.json'),
    );
    expect(backendFor('/abs/a.json').resolveFrom('/srv/fleet', '/abs/a.json')).toBe('/abs/a.json');
    expect(backendFor('postgres://db/t').resolveFrom('/srv/fleet', 'postgres://db/t')).toBe('postgres://db/t');
  });

  it('places a document beside a ledger: a file next to the state file, a reserved workspace of the database', () => {
    expect(backendFor('/srv/states.json').beside('/srv/states.json', 'rollout')).toEqual({
      state: '/srv/states.json.rollout',
      workspace: '_rollout',
    });
    expect(backendFor('postgres://db/t').beside('postgres://db/t', 'rollout')).toEqual({
      state: 'postgres://db/t',
      workspace: '_rollout',
    });
  });

  it('opens a file state without touching the disk until it is locked or read', async () => {
    const backend = await openStateBackend({ state: '/nonexistent/telform.state.json', workspace: 'default' }, {});
    expect(backend).toBeInstanceOf(FileBackend);
    expect(backend.location).toBe('/nonexistent/telform.state.json');
    await backend.close();
  });
});
