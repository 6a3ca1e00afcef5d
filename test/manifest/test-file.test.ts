import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTestFiles, loadTestFile } from '../../src/manifest/test-file.js';
import { testCommand } from '../../src/cli/test.js';
import { TelformError } from '../../src/util/errors.js';

const repository = path.resolve(import.meta.dirname, '../..');

/** Loads `text` as a test file and returns the error's place and message, or the file. */
async function load(
  text: string,
): Promise<{ place: string; message: string; exitCode: number } | Awaited<ReturnType<typeof loadTestFile>>> {
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-test-file-'));
  await writeFile(path.join(folder, 't.tftest.yaml'), text);
  try {
    return await loadTestFile('t.tftest.yaml', folder);
  } catch (error) {
    if (!(error instanceof TelformError)) throw error;
    const source = error.place?.source;
    return {
      place: source ? `${source.file}:${source.line}:${source.column}` : '',
      message: error.message,
      exitCode: error.exitCode,
    };
  }
}

const head = 'apiVersion: telform/v1\nkind: Test\nmanifests: [m/]\ntests:\n  - name: one\n    steps:\n';

describe('test files', () => {
  it('reads steps, their names, assertions and expectations', async () => {
    const file = await load(
      `${head}      - apply: { max_cost: 15, allow_irreversible: all }\n        expect_converged: false\n      - advance: 90s\n      - decline: Campaign/x\n      - name: check\n        plan:\n          manifests: other/\n        assert: plan.changes.size() == 0\n        no_findings: [{ rule: r }]\n`,
    );
    if (!('tests' in file)) throw new Error(file.message);
    const steps = file.tests[0]?.steps ?? [];
    expect(
      steps.map((step) => [
        step.name,
        step.action,
        step.expectConverged,
        step.assertions.map((assertion) => assertion.source),
        step.noFindings,
      ]),
    ).toEqual([
      ['apply', { kind: 'apply', approvals: { allowIrreversible: ['all'], maxCost: 15 } }, false, [], []],
      ['advance 90s', { kind: 'advance', ms: 90_000, text: '90s' }, true, [], []],
      ['decline Campaign/x', { kind: 'decide', decision: 'decline', address: 'Campaign/x' }, true, [], []],
      ['check', { kind: 'plan', manifests: ['other/'] }, true, ['plan.changes.size() == 0'], [{ rule: 'r' }]],
    ]);
  });

  it.each([
    [
      'apiVersion: telform/v1\nkind: Policy\n',
      't.tftest.yaml:1:1',
      'a test file starts with apiVersion: telform/v1 and kind: Test',
    ],
    [
      `${head}      - aply: {}\n`,
      't.tftest.yaml:7:9',
      'step 1: unknown field "aply"; did you mean "apply"? (fields: name, assert, expect_converged, expect_error, findings, no_findings, apply, plan, drift, advance, approve, decline, fault, rate_limit, out_of_band)',
    ],
    [
      `${head}      - plan: {}\n        apply: {}\n`,
      't.tftest.yaml:7:9',
      'step 1 must have exactly one of apply, plan, drift, advance, approve, decline, fault, rate_limit, out_of_band (it has apply and plan)',
    ],
    [`${head}      - advance: soon\n`, 't.tftest.yaml:7:18', 'advance must be a duration such as 90s, 10m, 1h or 2d'],
    [
      `${head}      - plan: {}\n        assert: ["plan.x == "]\n`,
      't.tftest.yaml:8:29',
      'step 1: assert: Unexpected token: EOF',
    ],
    [
      `${head}      - plan: {}\n        expect_converged: false\n`,
      't.tftest.yaml:8:27',
      'step 1: expect_converged belongs to an apply step',
    ],
    [
      `${head}      - approve: Trunk/x\n`,
      't.tftest.yaml:7:18',
      'approve names a Brand or Campaign by address, e.g. Campaign/acme-orders',
    ],
    [
      `${head}      - advance: 1h\n  - name: one\n    steps: [{ advance: 1h }]\n`,
      't.tftest.yaml:8:5',
      'the test name "one" is used twice',
    ],
    [
      'apiVersion: telform/v1\nkind: Test\ntests:\n  - name: one\n    steps: [{ plan: {} }]\n',
      't.tftest.yaml:4:5',
      'test "one" plans or applies but names no manifests (give manifests: in the file, the test or the step)',
    ],
    [
      'apiVersion: telform/v1\nkind: Test\nstart: missing.json\ntests:\n  - name: one\n    steps: [{ advance: 1h }]\n',
      't.tftest.yaml:3:8',
      'start: missing.json is not a file (a snapshot written by telform snapshot --out)',
    ],
  ])('refuses a bad file with its place and exit code 2 (%#)', async (text, place, message) => {
    expect(await load(text)).toEqual({ place, message, exitCode: 2 });
  });

  it('takes the test files directly in a folder, not those of its subfolders', async () => {
    expect(await findTestFiles(['examples/tests'], repository)).toEqual([
      'examples/tests/campaign-declined.tftest.yaml',
      'examples/tests/campaign-expires.tftest.yaml',
      'examples/tests/lost-create.tftest.yaml',
      'examples/tests/policy.tftest.yaml',
      'examples/tests/start-from-snapshot.tftest.yaml',
    ]);
  });

  it('shows examples/tests/lost-create.tftest.yaml end to end in telform test --help', async () => {
    let help = '';
    const command = testCommand()
      .exitOverride()
      .configureOutput({ writeOut: (text) => (help += text) });
    expect(() => command.parse(['node', 'test', '--help'])).toThrow();
    const example = await readFile(path.join(repository, 'examples/tests/lost-create.tftest.yaml'), 'utf8');
    expect(help).toContain(
      example
        .trimEnd()
        .split('\n')
        .map((line) => (line ? `  ${line}` : ''))
        .join('\n'),
    );
  });
});
