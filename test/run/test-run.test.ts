import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../../src/cli/test-emulator.js';
import { loadTestFile } from '../../src/manifest/test-file.js';
import { runTests } from '../../src/run/test-run.js';

// The test-run operation in process, on the emulators the CLI would start: how each kind of failure is
// reported (the examples' passing runs are in test/e2e/test-command.test.ts).

const repository = path.resolve(import.meta.dirname, '../..');
const office = path.join(repository, 'examples/tests/lost-create');
const policy = path.join(repository, 'examples/tests/policy');

async function run(text: string, files: Record<string, string> = {}) {
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-test-run-'));
  await writeFile(path.join(folder, 'case.tftest.yaml'), text);
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(folder, name), content);
  return runTests([await loadTestFile('case.tftest.yaml', folder)], startTestEmulator);
}

describe('the test-run operation', () => {
  it('sees an object changed out of band as drift, stops a test at its failing step and goes on with the next', async () => {
    const report = await run(`apiVersion: telform/v1
kind: Test
manifests: [${office}]
env: { TEST_TRUNK_PASSWORD: "TestOnly#Secret1" }
tests:
  - name: edited by hand
    steps:
      - apply: {}
      - out_of_band:
          method: POST
          path: /Zentrunk/IPAccessControlList/{TrunkIpAcl/test-office}/
          body: { ip_addresses: [198.51.100.10] }
      - drift: {}
        assert:
          - drift.drifted == ["TrunkIpAcl/test-office"] && drift.exit_code == 2
          - drift.status == "in_sync" && drift.exit_code == 0
      - apply: {}
  - name: names what no plan saw
    steps:
      - out_of_band: { method: DELETE, path: "/Zentrunk/IPAccessControlList/{TrunkIpAcl/test-office}/" }
  - name: a step that should fail and does not
    steps:
      - plan: {}
        expect_error: true
`);
    expect(report).toEqual({
      files: [
        {
          file: 'case.tftest.yaml',
          tests: [
            {
              name: 'edited by hand',
              status: 'failed',
              steps: 4,
              failure: {
                step: 3,
                stepName: 'drift',
                assertion: 'drift.status == "in_sync" && drift.exit_code == 0',
                message: 'assertion failed',
                values: ['drift.status = "drifted"'],
              },
            },
            {
              name: 'names what no plan saw',
              status: 'failed',
              steps: 1,
              failure: {
                step: 1,
                stepName: 'out_of_band DELETE /Zentrunk/IPAccessControlList/{TrunkIpAcl/test-office}/',
                message:
                  "TrunkIpAcl/test-office is not in the account as this test's plans saw it: apply it before naming it",
                values: [],
              },
            },
            {
              name: 'a step that should fail and does not',
              status: 'failed',
              steps: 1,
              failure: {
                step: 1,
                stepName: 'plan',
                assertion: 'expect_error',
                message: 'the step was expected to fail (expect_error: true) and did not',
                values: [],
              },
            },
          ],
        },
      ],
    });
  });

  it('fails a policy test whose rule misses a finding, or makes one it must not, saying what it found', async () => {
    const report = await run(`apiVersion: telform/v1
kind: Test
policies: [${policy}/trunks.policy.yaml]
tests:
  - name: missed
    manifests: [${policy}/secure/]
    steps:
      - plan: {}
        findings: [{ rule: outbound-trunks-secure, address: Trunk/test-outbound }]
  - name: unwanted
    manifests: [${policy}/insecure/]
    steps:
      - plan: {}
        no_findings: [{ rule: outbound-trunks-secure }]
  - name: an apply the policy refuses fails the test unless expected
    manifests: [${policy}/insecure/]
    steps:
      - apply: {}
`);
    expect(report.files[0]?.tests.map((test) => test.failure)).toEqual([
      {
        step: 1,
        stepName: 'plan',
        assertion: 'findings: outbound-trunks-secure on Trunk/test-outbound',
        message: 'the plan has no finding outbound-trunks-secure on Trunk/test-outbound',
        values: ['findings = none'],
      },
      {
        step: 1,
        stepName: 'plan',
        assertion: 'no_findings: outbound-trunks-secure',
        message: 'the plan has the finding outbound-trunks-secure',
        values: ['findings = outbound-trunks-secure on Trunk/test-outbound'],
      },
      {
        step: 1,
        stepName: 'apply',
        message:
          'apply refused: Trunk/test-outbound violates policy outbound-trunks-secure: outbound trunks must be secure (TLS and SRTP)',
        values: [],
      },
    ]);
  });

  it("fails a step whose manifests do not load with the manifests' problems, and reads secrets from the file's env only", async () => {
    const trunk =
      'apiVersion: telform/v1\nkind: TrunkCredential\nmetadata:\n  name: login\nspec:\n  username: officetrunk01\n  password: { fromEnv: TEST_TRUNK_PASSWORD }\n  colour: blue\n';
    const report = await run(
      `apiVersion: telform/v1
kind: Test
manifests: [login.yaml]
env: { TEST_TRUNK_PASSWORD: "TestOnly#Secret1" }
tests:
  - name: bad manifest
    steps:
      - plan: {}
`,
      { 'login.yaml': trunk },
    );
    expect(report.files[0]?.tests[0]?.failure).toEqual({
      step: 1,
      stepName: 'plan',
      message: 'the manifests have 1 error (listed above); nothing was sent',
      values: [
        'login.yaml:8:3  TrunkCredential/login  spec.colour: unknown field "colour"; allowed: name, username, password',
      ],
    });

    // Not from the environment telform runs in: a test needs the secret in its file.
    process.env.TEST_TRUNK_PASSWORD = 'TestOnly#Secret1';
    try {
      const without = await run(
        `apiVersion: telform/v1\nkind: Test\nmanifests: [login.yaml]\ntests:\n  - name: no env\n    steps: [{ plan: {} }]\n`,
        { 'login.yaml': trunk.replace('  colour: blue\n', '') },
      );
      expect(without.files[0]?.tests[0]?.failure?.values).toEqual([
        'login.yaml:7:24  TrunkCredential/login  spec.password: environment variable TEST_TRUNK_PASSWORD is not set',
      ]);
    } finally {
      delete process.env.TEST_TRUNK_PASSWORD;
    }
  });
});
