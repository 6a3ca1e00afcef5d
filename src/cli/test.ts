// `telform test [PATH...]`: find the test files, load them (a bad one is exit 2 with its file:line), run
// them on fresh embedded emulators (run/test-run.ts), print the report as text or JUnit XML.
import path from 'node:path';
import { Command, Option } from 'commander';
import { findTestFiles, loadTestFile, type TestFile } from '../manifest/test-file.js';
import { testTotals } from '../render/test-report.js';
import { formatChoices, rendererFor, type Format } from '../render/index.js';
import { runTests } from '../run/test-run.js';
import type { GlobalOptions } from '../run/context.js';
import { checkOutputFile, outputGuard, writeOutputFile, type OutputGuard } from '../run/output-file.js';
import { processIo } from './io.js';
import { startTestEmulator, testFileChecks } from './test-emulator.js';

/** What a test file reads besides itself: its manifests, policies and start snapshot (relative to where telform runs). */
function testInputs(file: TestFile): string[] {
  const manifests = file.tests.flatMap((test) => test.manifests ?? []);
  return [...manifests, ...file.policies, ...(file.start ? [file.start] : [])].map((item) =>
    path.resolve(file.folder, item),
  );
}

interface TestOptions {
  format: Format;
  junit?: string;
}

/** `examples/tests/lost-create.tftest.yaml` as it is (a test compares them). */
const exampleTestFile = `  # examples/tests/lost-create.tftest.yaml
  # A create whose response is lost is made exactly once: telform finds the object it made by its name
  # instead of sending the create again.
  apiVersion: telform/v1
  kind: Test
  manifests: [lost-create/]             # relative to this file; a test or a step may name its own
  env:                                  # the manifests' secrets come from here, never from the environment
    TEST_TRUNK_PASSWORD: TestOnly#Secret1
  tests:
    - name: a create whose response is lost is made once
      steps:
        - fault: lost=1,methods=POST    # every POST is handled, then its answer is lost
        - apply: {}                     # then the plan after it must be empty (expect_converged)
          assert:
            - apply.status == "applied" && !apply.failed
            - requests.exists(r, r.fault == "lost_response")
            - requests.filter(r, r.method == "POST" && r.path.endsWith("/Zentrunk/IPAccessControlList/")).size() == 1
        - fault: none
        - apply: {}
          assert:
            - apply.status == "no_changes"
            - requests.filter(r, r.method == "POST" && r.path.endsWith("/Zentrunk/IPAccessControlList/")).size() == 1`;

export function testCommand(): Command {
  return new Command('test')
    .description(
      'Run the test files (*.tftest.yaml) beside the manifests, each test on a fresh embedded emulator; nothing leaves this machine.',
    )
    .argument('[path...]', 'test files, or folders whose *.tftest.yaml files to run (not their subfolders)', ['.'])
    .addOption(
      new Option('--format <format>', 'report format on stdout').choices(formatChoices('test')).default('text'),
    )
    .option('--junit <file>', 'also write the report as JUnit XML to this file (for CI)')
    .addHelpText(
      'after',
      `
A test file, end to end:

${exampleTestFile}

Besides manifests, env and tests, a file may give policies (files evaluated on every plan) and start
(a snapshot each test starts from).

Steps (one action each, optionally a name, assertions and expectations):
  apply: {}  plan: {}  drift: {}      reconcile the manifests (apply: allow_irreversible, max_cost)
  advance: 1h                         move the emulator's clock (its registry decides an hour after a submission)
  approve: Campaign/NAME | decline: Brand/NAME   the registry decides a registration under review now
  fault: lost=1,methods=POST | none   faults as \`telform emulator --faults\` takes them (500, reset, lost)
  rate_limit: 2/1m | none             requests past it are answered 429
  out_of_band: {method, path, body}   a request sent by someone else; {Kind/name} in the path is its id
  assert: [CEL, ...]                  over plan, drift, apply, error, requests (the request log), billing
  expect_converged: false             on an apply: skip the check that the plan after it is empty
  expect_error: true                  the step must fail (its message is \`error\`)
  findings / no_findings: [{rule, address}]   policy tests: what the step's plan must and must not find

Exit codes: 0 every test passed, 1 a test failed, 2 a test file is invalid (named with its file:line).
See docs/testing.md for the variables and more examples.

Examples:
  $ telform test                               # the *.tftest.yaml files of this folder
  $ telform test examples/tests
  $ telform test tests/ --junit telform-tests.xml
  $ telform test tests/declined.tftest.yaml --format junit > report.xml`,
    )
    .action(async (paths: string[], options: TestOptions, cmd: Command) => {
      const io = processIo();
      const found = await findTestFiles(paths, io.cwd);
      // The report never replaces a test file, a manifest or snapshot a test reads, or the state.
      const guard = (files: readonly TestFile[]): OutputGuard => ({
        ...outputGuard(
          '--junit',
          [...paths, ...found, ...files.flatMap(testInputs)],
          cmd.optsWithGlobals<GlobalOptions>(),
          {
            io,
          },
        ),
        replaces: { what: 'a JUnit report', test: (text) => /^\s*(<\?xml[^>]*>\s*)?<testsuites?[\s>]/.test(text) },
      });
      if (options.junit !== undefined) await checkOutputFile(options.junit, guard([]));
      const files: TestFile[] = [];
      const checks = await testFileChecks();
      for (const file of found) files.push(await loadTestFile(file, io.cwd, checks));
      const report = await runTests(files, startTestEmulator);
      io.stdout(rendererFor(options.format, 'test')(report));
      if (options.junit !== undefined)
        await writeOutputFile(options.junit, guard(files), rendererFor('junit', 'test')(report));
      process.exitCode = testTotals(report).failed > 0 ? 1 : 0;
    });
}
