import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolicyFile } from '../../src/manifest/policy-file.js';

// CEL's matches() has RE2 semantics and runs in time linear in its input (issue 46 item 8): a rule
// over live text must not be able to hang plan or serve by backtracking.
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-policy-regex-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function ruleOf(expression: string): Promise<(context: Record<string, unknown>) => unknown> {
  const file = path.join(folder, 'p.yaml');
  await writeFile(
    file,
    `apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: p\nrules:\n  - id: r\n    message: m\n    expression: ${JSON.stringify(expression)}\n`,
  );
  const [rule] = await loadPolicyFile('p.yaml', folder);
  return (context) => rule!.expression.run(context);
}

describe('matches() in policies', () => {
  it('finds a match anywhere in the string, as CEL says', async () => {
    const run = await ruleOf("resource.description.matches('b+c')");
    expect(run({ resource: { description: 'abbcd' } })).toBe(true);
    expect(run({ resource: { description: 'abd' } })).toBe(false);
  });

  it('answers a pattern that backtracks exponentially in JavaScript (no match over 30 characters)', async () => {
    const run = await ruleOf("resource.description.matches('^(a+)+$')");
    expect(run({ resource: { description: `${'a'.repeat(29)}!` } })).toBe(false);
    expect(run({ resource: { description: 'a'.repeat(30) } })).toBe(true);
  });

  it('refuses a back-reference, which RE2 does not have, as an invalid regular expression', async () => {
    const run = await ruleOf("resource.description.matches('(a)\\\\1')");
    expect(() => run({ resource: { description: 'aa' } })).toThrow(/invalid regular expression/i);
  });

  it('says matches, not an internal name, when the argument is not a string', async () => {
    const file = path.join(folder, 'bad.yaml');
    await writeFile(
      file,
      'apiVersion: telform/v1\nkind: Policy\nmetadata:\n  name: p\nrules:\n  - id: r\n    message: m\n    expression: "\'a\'.matches(1)"\n',
    );
    const [rule] = await loadPolicyFile('bad.yaml', folder);
    expect(() => rule!.expression.run({})).toThrow("found no matching overload for 'string.matches(int)'");
  });
});
