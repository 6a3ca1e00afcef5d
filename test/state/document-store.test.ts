import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileBackend } from '../../src/state/backends/file.js';
import { PostgresBackend } from '../../src/state/backends/postgres.js';
import type { StateBackend } from '../../src/state/backend.js';
import { DocumentStore } from '../../src/state/document-store.js';
import { startPostgres, type PostgresServer } from './postgres-server.js';

/**
 * A rollout's record in the state backends: what one run writes, a later run (another runner,
 * with the same backend) reads; one run at a time; writes asked at once are all kept, in order.
 */

let folder: string;
let server: PostgresServer;
let url: string;

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-document-store-'));
  server = await startPostgres();
  url = await server.createDatabase('documents');
});
afterAll(async () => {
  await server?.stop();
  await rm(folder, { recursive: true, force: true });
});

const backends: Array<[string, () => Promise<StateBackend>]> = [
  ['file', async () => new FileBackend(path.join(folder, '_rollout.json'))],
  ['PostgreSQL', () => PostgresBackend.open(url, '_rollout', {})],
];

describe.each(backends)('DocumentStore on the %s backend', (_name, open) => {
  it('keeps every write, in order, for the next run to read, and lets one run at a time hold it', async () => {
    const first = await DocumentStore.open(await open(), { lockWaitMs: 0 });
    expect(first.initial).toBeUndefined();
    await expect(DocumentStore.open(await open(), { lockWaitMs: 0 })).rejects.toThrow(/locked by/);
    await Promise.all(Array.from({ length: 10 }, (_, index) => first.write({ kind: 'telform-rollout', step: index })));
    await first.close();

    const second = await DocumentStore.open(await open(), { lockWaitMs: 0 });
    expect(JSON.parse(second.initial ?? '')).toEqual({ kind: 'telform-rollout', step: 9, serial: 10 });
    await second.write({ kind: 'telform-rollout', step: 10 });
    await second.close();
    const third = await DocumentStore.open(await open(), { lockWaitMs: 0 });
    expect(JSON.parse(third.initial ?? '')).toMatchObject({ step: 10, serial: 11 });
    await third.close();
  });
});

it('writes the file atomically as indented JSON', async () => {
  expect(JSON.parse(await readFile(path.join(folder, '_rollout.json'), 'utf8'))).toMatchObject({
    kind: 'telform-rollout',
  });
});
