import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../../src/manifest/policy-file.js';
import { TelformError } from '../../src/util/errors.js';

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-policy-file-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const rule = '  - id: secure\n    message: be secure\n    expression: "true"\n';

describe('loadPolicyFile', () => {
  it('refuses an unknown top-level key as policy_invalid at its place (issue 33 item 30)', async () => {
    await writeFile(path.join(folder, 'p.yaml'), `apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: p\nrules:\n${rule}rule:\n${rule}`);
    const error = await loadPolicyFile('p.yaml', folder).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TelformError);
    expect((error as TelformError).code).toBe('policy_invalid');
    expect((error as TelformError).message).toBe('unknown field "rule"; did you mean "rules"? (a policy file holds apiVersion, kind, metadata, rules)');
    expect((error as TelformError).place?.source).toEqual({ file: 'p.yaml', line: 9, column: 1 });
  });

  it('reads a file with apiVersion, kind, metadata and rules', async () => {
    await writeFile(path.join(folder, 'q.yaml'), `apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: q\nrules:\n${rule}`);
    expect((await loadPolicyFile('q.yaml', folder)).map((loaded) => loaded.id)).toEqual(['secure']);
  });
});
