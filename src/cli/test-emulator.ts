// The emulator each test of `telform test` runs on: started in this process on 127.0.0.1 (port 0) with a
// new account, or from a snapshot file as `telform emulator --data` loads one (kept in memory, never
// written back). Its registry decides an hour after a submission on the emulator's clock, so only a
// test's `advance` steps move registrations on. Only the CLI starts emulators: the test-run operation
// is handed this.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { TelformError } from '../util/errors.js';
import { printable } from '../util/printable.js';
import type { StartTestEmulator, TestEmulator } from '../run/test-run.js';
import type { TestFileChecks } from '../manifest/test-file.js';
import { startLocalEmulator } from './local-emulator.js';

/** How long the test emulator's registry keeps a brand, campaign or number link under review. */
const testRegistryDelayMs = 3_600_000;

/** The account a snapshot was taken of (its header's `account`); undefined when it does not say. */
async function snapshotAccount(file: string): Promise<string | undefined> {
  let document: unknown;
  try {
    document = parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new TelformError(
      'test_invalid',
      `the start snapshot ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'not JSON or YAML'})`,
      { exitCode: 2 },
    );
  }
  const account = (document as { account?: unknown } | null)?.account;
  return typeof account === 'string' && /^[A-Za-z0-9]{1,64}$/.test(account) ? account : undefined;
}

export const startTestEmulator: StartTestEmulator = async (snapshot) => {
  const { defaultAccount } = await import('../emulator/index.js');
  const account = (snapshot === undefined ? undefined : await snapshotAccount(snapshot)) ?? defaultAccount.authId;
  const emulator = await startLocalEmulator({
    account,
    registryDelayMs: testRegistryDelayMs,
    ...(snapshot === undefined ? {} : { dataFile: snapshot }),
  });
  const { client, authToken } = emulator;
  const started: TestEmulator = {
    client,
    account,
    authToken,
    admin: async (method, route, body) => {
      const response = await fetch(`${emulator.url}${route}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await response.json()) as { error?: unknown };
      if (!response.ok) {
        // The emulator's own message (a fault spec it refuses, a clock it will not move) says what to fix.
        throw new TelformError(
          'test_invalid',
          `the test emulator refused ${method} ${route}: ${printable(String(answer.error ?? response.status))}`,
        );
      }
      return answer;
    },
    close: () => emulator.close(),
  };
  return started;
};

/**
 * What the test emulator would refuse in a test file, checked as the file loads, so a bad `fault:` or
 * `rate_limit:` spec or a `start:` snapshot it cannot load is an invalid test file (exit 2, at its
 * line) rather than a failure when the step runs.
 */
export async function testFileChecks(): Promise<TestFileChecks> {
  const { parseFaultSpec, resolveRateLimit } = await import('../emulator/index.js');
  const said = (run: () => unknown): string | undefined => {
    try {
      run();
      return undefined;
    } catch (error) {
      return printable((error as Error).message);
    }
  };
  return {
    fault: (spec) => said(() => parseFaultSpec(spec)),
    rateLimit: (spec) => said(() => resolveRateLimit(spec)),
    start: async (file) => {
      try {
        const emulator = await startTestEmulator(file);
        await emulator.close();
        return undefined;
      } catch (error) {
        if (error instanceof TelformError) return error.message;
        return `the emulator cannot load it: ${printable((error as Error).message)}`;
      }
    },
  };
}
