import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EmulatorStartError,
  defaultAccount,
  startEmbeddedEmulator,
  type EmbeddedEmulator,
} from '../../src/emulator/index.js';
import { call } from './fixtures/http.js';

let workspace: string;
const running: EmbeddedEmulator[] = [];
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'telform-embedded-'));
});
afterEach(async () => {
  for (const emulator of running.splice(0)) await emulator.close();
  await rm(workspace, { recursive: true, force: true });
});

async function start(directory: string): Promise<EmbeddedEmulator> {
  const emulator = await startEmbeddedEmulator({ directory });
  running.push(emulator);
  return emulator;
}

async function stop(emulator: EmbeddedEmulator): Promise<void> {
  running.splice(running.indexOf(emulator), 1);
  await emulator.close();
}

describe('the embedded emulator', () => {
  it('serves the default account on loopback, with its data in <directory>/emulator.json', async () => {
    const directory = join(workspace, '.telform');
    const emulator = await start(directory);
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator).toMatchObject({
      authId: defaultAccount.authId,
      authToken: defaultAccount.authToken,
      dataFile: join(directory, 'emulator.json'),
    });
    expect((await stat(emulator.dataFile)).isFile()).toBe(true);
    // The directory is scratch state: it ignores itself in git.
    expect(await readFile(join(directory, '.gitignore'), 'utf8')).toContain('\n*\n');
  });

  it('carries state from one command to the next', async () => {
    const directory = join(workspace, '.telform');
    const path = `/v1/Account/${defaultAccount.authId}/Zentrunk/IPAccessControlList/`;
    const auth = [defaultAccount.authId, defaultAccount.authToken] as const;
    const first = await start(directory);
    expect(
      await call(first.url, path, { method: 'POST', auth, body: { name: 'kept', ip_addresses: ['203.0.113.5'] } }),
    ).toMatchObject({ status: 201 });
    await stop(first);
    const second = await start(directory);
    expect(await call(second.url, path, { auth })).toMatchObject({
      status: 200,
      body: { objects: [{ name: 'kept' }] },
    });
  });

  it('refuses a second command on the same directory while the first runs', async () => {
    const directory = join(workspace, '.telform');
    const first = await start(directory);
    const refusal = await startEmbeddedEmulator({ directory }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(EmulatorStartError);
    expect((refusal as Error).message).toBe(
      `Another telform command is using the local emulator in ${directory}; wait for it to finish and run this one again.`,
    );
    await stop(first);
    await stop(await start(directory));
  });

  it('defaults to .telform under the current directory', async () => {
    const previous = process.cwd();
    process.chdir(workspace);
    try {
      const emulator = await startEmbeddedEmulator();
      running.push(emulator);
      expect(emulator.dataFile).toBe(join(process.cwd(), '.telform', 'emulator.json'));
    } finally {
      process.chdir(previous);
    }
  });

  it('says so when the directory is a file', async () => {
    const directory = join(workspace, 'not-a-directory');
    await writeFile(directory, '');
    await expect(startEmbeddedEmulator({ directory })).rejects.toThrow(
      `${directory} exists and is not a directory, so the local emulator cannot keep its data there.`,
    );
  });
});
