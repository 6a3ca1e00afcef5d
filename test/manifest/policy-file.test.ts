import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApprovalPolicy } from '../../src/manifest/approval-policy.js';
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
    await writeFile(
      path.join(folder, 'p.yaml'),
      `apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: p\nrules:\n${rule}rule:\n${rule}`,
    );
    const error = await loadPolicyFile('p.yaml', folder).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TelformError);
    expect((error as TelformError).code).toBe('policy_invalid');
    expect((error as TelformError).message).toBe(
      'unknown field "rule"; did you mean "rules"? (a policy file holds apiVersion, kind, metadata, rules, people, approvals, freeze)',
    );
    expect((error as TelformError).place?.source).toEqual({ file: 'p.yaml', line: 9, column: 1 });
  });

  it('reads a file with apiVersion, kind, metadata and rules', async () => {
    await writeFile(
      path.join(folder, 'q.yaml'),
      `apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: q\nrules:\n${rule}`,
    );
    expect((await loadPolicyFile('q.yaml', folder)).map((loaded) => loaded.id)).toEqual(['secure']);
  });

  it('refuses a rule whose nested comprehensions would take longer than its budget, naming it where it is written (issue 33 item 9)', async () => {
    let bomb = 'true';
    for (let depth = 0; depth < 40; depth += 1) bomb = `[1, 2].all(x${depth}, ${bomb})`;
    await writeFile(
      path.join(folder, 'bomb.yaml'),
      `apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: b\nrules:\n  - id: slow\n    message: m\n    expression: "${bomb}"\n`,
    );
    const error = await loadPolicyFile('bomb.yaml', folder).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TelformError);
    expect((error as TelformError).code).toBe('policy_failed');
    expect((error as TelformError).message).toBe(
      'rule slow: expression would take about 7.7e+12 steps per change, over the budget of 1,000,000 a rule may take: nest fewer comprehensions (all, exists, map, filter)',
    );
    expect((error as TelformError).place?.source).toEqual({ file: 'bomb.yaml', line: 8, column: 18 });
  });

  it('accepts comprehensions nested over the resource as rules need them', async () => {
    const expression = 'resource.spec.entries.all(e, resource.spec.entries.exists(f, f.ip == e.ip))';
    await writeFile(
      path.join(folder, 'ok.yaml'),
      `apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: o\nrules:\n  - id: fine\n    message: m\n    expression: "${expression}"\n`,
    );
    expect((await loadPolicyFile('ok.yaml', folder)).map((loaded) => loaded.id)).toEqual(['fine']);
  });
});

describe('approval rules are read by the same reader (approval-policy.ts)', () => {
  it('refuses a misspelt approvals key, a wrong kind and bad YAML exactly as the CEL rules do', async () => {
    const cases = [
      ['a.yaml', 'apiVersion: telform/v1\nkind: Policy\naprovals:\n  - { id: x, match: "true", needs: none }\n'],
      ['b.yaml', 'apiVersion: telform/v1\nkind: Policies\napprovals: []\n'],
      ['c.yaml', 'apiVersion: telform/v1\nkind: Policy\napprovals: [\n'],
    ] as const;
    for (const [file, text] of cases) {
      await writeFile(path.join(folder, file), text);
      const approvals = await loadApprovalPolicy([file], folder).catch((caught: unknown) => caught);
      const rules = await loadPolicyFile(file, folder).catch((caught: unknown) => caught);
      expect(approvals).toBeInstanceOf(TelformError);
      expect([
        (approvals as TelformError).code,
        (approvals as TelformError).message,
        (approvals as TelformError).place,
      ]).toEqual([(rules as TelformError).code, (rules as TelformError).message, (rules as TelformError).place]);
    }
    const first = await loadApprovalPolicy(['a.yaml'], folder).catch((caught: unknown) => caught as TelformError);
    expect((first as TelformError).message).toBe(
      'unknown field "aprovals"; did you mean "approvals"? (a policy file holds apiVersion, kind, metadata, rules, people, approvals, freeze)',
    );
  });
});
