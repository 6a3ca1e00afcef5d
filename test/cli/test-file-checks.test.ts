import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testFileChecks } from '../../src/cli/test-emulator.js';
import { loadTestFile } from '../../src/manifest/test-file.js';
import { TelformError } from '../../src/util/errors.js';

// What the test emulator would refuse is an invalid test file, found as it loads (exit 2 at its line
// and column), not a failure when the step runs; an out_of_band path cannot leave the account's API
// for the test emulator's admin routes (issue 46 item 7).
async function load(text: string, files: Record<string, string> = {}): Promise<unknown> {
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-test-checks-'));
  await writeFile(path.join(folder, 't.tftest.yaml'), text);
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(folder, name), content);
  try {
    return await loadTestFile('t.tftest.yaml', folder, await testFileChecks());
  } catch (error) {
    if (!(error instanceof TelformError)) throw error;
    const source = error.place?.source;
    return {
      place: `${source?.file}:${source?.line}:${source?.column}`,
      message: error.message,
      exitCode: error.exitCode,
    };
  }
}

const head = 'apiVersion: telform/v1\nkind: Test\nmanifests: [m/]\ntests:\n  - name: one\n    steps:\n';

describe('test files the test emulator would refuse', () => {
  it.each([
    '/../../__emulator/clock/',
    '/Zentrunk/Trunk/%2e%2e/%2E%2E/__emulator/faults/',
    '/Zentrunk/Trunk/x%2F..%2F..%2F__emulator/',
    '/Zentrunk/Trunk/\\..\\__emulator/',
  ])('refuses the out_of_band path %s', async (requestPath) => {
    expect(await load(`${head}      - out_of_band: { method: POST, path: ${JSON.stringify(requestPath)} }\n`)).toEqual({
      place: 't.tftest.yaml:7:44',
      message:
        'out_of_band: path may not hold . or .. segments, a backslash, a query or an encoded slash: it stays under the account',
      exitCode: 2,
    });
  });

  it('refuses a fault spec the emulator refuses, at its place', async () => {
    expect(await load(`${head}      - fault: lost=2\n`)).toMatchObject({
      place: 't.tftest.yaml:7:16',
      message: expect.stringMatching(/^fault: /),
      exitCode: 2,
    });
  });

  it('refuses a rate_limit spec the emulator refuses, at its place', async () => {
    expect(await load(`${head}      - rate_limit: lots\n`)).toEqual({
      place: 't.tftest.yaml:7:21',
      message: 'rate_limit: rate limit must be REQUESTS/PERIOD such as 300/5s, 10/s or 1000/1m, not "lots"',
      exitCode: 2,
    });
  });

  it('refuses a start snapshot the emulator will not load, at its place', async () => {
    const loaded = await load(
      'apiVersion: telform/v1\nkind: Test\nstart: old.json\ntests:\n  - name: one\n    steps: [{ advance: 1h }]\n',
      { 'old.json': '{"format": "telform-snapshot", "version": 9}\n' },
    );
    expect(loaded).toMatchObject({
      place: 't.tftest.yaml:3:8',
      message: expect.stringMatching(/^start: old\.json: .*version/),
      exitCode: 2,
    });
  });

  it('takes none, a fault spec and a rate limit the emulator accepts', async () => {
    const loaded = (await load(
      `${head}      - fault: lost=1,methods=POST\n      - rate_limit: 2/1m\n      - fault: none\n`,
    )) as { tests: Array<{ steps: unknown[] }> };
    expect(loaded.tests[0]?.steps).toHaveLength(3);
  });
});
