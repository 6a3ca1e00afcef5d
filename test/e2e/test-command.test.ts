import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, repository, runCli } from './cli.js';

// `telform test` through the built CLI: the examples pass, the broken one fails naming its step and
// assertion (in text and in the JUnit file), and a bad test file is exit 2 with its place.

const lostCreateAssertion =
  'requests.filter(r, r.method == "POST" && r.path.endsWith("/Zentrunk/IPAccessControlList/")).size() == 2';

describe('telform test', () => {
  it('runs the examples, each test on a fresh emulator, and they pass', async () => {
    const run = await runCli(['test', 'examples/tests'], { cwd: repository, env: cleanEnv() });
    expect(run).toEqual({
      code: 0,
      stderr: '',
      stdout: [
        'examples/tests/campaign-declined.tftest.yaml',
        '  ok    a declined campaign is reported with its reason (9 steps)',
        "  ok    the registry's decision taken by the test (6 steps)",
        'examples/tests/campaign-expires.tftest.yaml',
        '  ok    an expired campaign is reported, not acted on (7 steps)',
        'examples/tests/lost-create.tftest.yaml',
        '  ok    a create whose response is lost is made once (4 steps)',
        'examples/tests/policy.tftest.yaml',
        '  ok    an insecure outbound trunk is found and refused (2 steps)',
        '  ok    a secure outbound trunk passes (2 steps)',
        'examples/tests/start-from-snapshot.tftest.yaml',
        '  ok    the ACL made by hand is adopted, not created again (2 steps)',
        '',
        '7 tests: 7 passed, 0 failed',
        '',
      ].join('\n'),
    });
  });

  it('fails the broken example naming its step and assertion, in text and in the JUnit file', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'telform-test-junit-'));
    const junit = path.join(folder, 'report.xml');
    const run = await runCli(['test', 'examples/tests/broken', '--junit', junit], { cwd: repository, env: cleanEnv() });
    expect(run).toEqual({
      code: 1,
      stderr: '',
      stdout: [
        'examples/tests/broken/broken.tftest.yaml',
        '  FAIL  a lost create is duplicated (2 steps)',
        '        step 2 (apply through the lost response): assertion failed',
        `        assertion: ${lostCreateAssertion}`,
        '        saw: requests.filter(r, r.method == "POST" && r.path.endsWith("/Zentrunk/IPAccessControlList/")).size() = 1',
        '',
        '1 test: 0 passed, 1 failed',
        '',
      ].join('\n'),
    });
    const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
    expect(await readFile(junit, 'utf8')).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="telform test" tests="1" failures="1">',
        '  <testsuite name="examples/tests/broken/broken.tftest.yaml" tests="1" failures="1">',
        '    <testcase classname="examples/tests/broken/broken.tftest.yaml" name="a lost create is duplicated">',
        `      <failure message="step 2 (apply through the lost response): assertion failed: ${escaped(lostCreateAssertion)}">step 2 (apply through the lost response): assertion failed`,
        `assertion: ${escaped(lostCreateAssertion)}`,
        `saw: ${escaped('requests.filter(r, r.method == "POST" && r.path.endsWith("/Zentrunk/IPAccessControlList/")).size() = 1')}</failure>`,
        '    </testcase>',
        '  </testsuite>',
        '</testsuites>',
        '',
      ].join('\n'),
    );
  });

  it('refuses a bad test file with its file:line:column and exit code 2, before any test runs', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'telform-test-bad-'));
    await writeFile(
      path.join(folder, 'bad.tftest.yaml'),
      'apiVersion: telform/v1\nkind: Test\nmanifests: [m/]\ntests:\n  - name: one\n    steps:\n      - aply: {}\n',
    );
    const run = await runCli(['test'], { cwd: folder, env: cleanEnv() });
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: bad.tftest.yaml:7:9  step 1: unknown field "aply"; did you mean "apply"? (fields: name, assert, expect_converged, expect_error, findings, no_findings, apply, plan, drift, advance, approve, decline, fault, rate_limit, out_of_band)\n',
    });
  });
});
