import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultAccount } from '../../src/emulator/index.js';
import { deserialiseState } from '../../src/emulator/persistence.js';
import { call, isFailure } from './fixtures/http.js';

/**
 * Issue #4: after a SIGKILL at any moment, every acknowledged write is in the data file and the file is
 * never corrupt. The built CLI (`npm run build`) runs as a child process; each round starts it on the
 * same file, checks that everything acknowledged so far was kept (and nothing deleted came back), sends
 * creates and deletes from several clients at once, and kills it while requests are in flight.
 */

const cli = resolve('dist/cli/main.js');
const auth = [defaultAccount.authId, defaultAccount.authToken] as const;
const aclPath = `/v1/Account/${defaultAccount.authId}/Zentrunk/IPAccessControlList/`;
const rounds = 22;
const clients = 6;

let directory: string | undefined;
const children = new Set<ChildProcess>();
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  if (directory) await rm(directory, { recursive: true, force: true });
});

async function startCli(dataFile: string): Promise<{ child: ChildProcess; url: string; exited: Promise<void> }> {
  const child = spawn(process.execPath, [cli, 'emulator', '--data', dataFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  void exited.then(() => children.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((found, fail) => {
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)\n/.exec(stdout);
      if (match) found(match[1] as string);
    });
    void exited.then(() => fail(new Error(`the emulator exited before listening: ${stderr}`)));
  });
  return { child, url, exited };
}

interface Ledger {
  /** Acknowledged creates (201), by name → ipacl_uuid. */
  created: Map<string, string>;
  /** Acknowledged deletes (204). */
  deleted: Set<string>;
  /** Deletes sent but never answered (the kill came first): each may or may not have happened. */
  uncertain: Set<string>;
}

function checkSaved(text: string, dataFile: string, ledger: Ledger): number {
  const state = deserialiseState(text, dataFile);
  const acls = state.accounts.get(defaultAccount.authId)?.trunkAcls ?? new Map();
  for (const [name, id] of ledger.created) {
    if (ledger.deleted.has(id)) expect(acls.has(id), `deleted ${name} came back`).toBe(false);
    else if (!ledger.uncertain.has(id)) expect(acls.get(id)?.name, `acknowledged ${name} is missing`).toBe(name);
  }
  return acls.size;
}

describe('SIGKILL during writes', () => {
  it(`loses no acknowledged write over ${rounds} kills`, async () => {
    expect(existsSync(cli), 'run `npm run build` first: this test drives the built CLI').toBe(true);
    directory = await mkdtemp(join(tmpdir(), 'telform-kill-'));
    const dataFile = join(directory, 'emulator.json');
    const ledger: Ledger = { created: new Map(), deleted: new Set(), uncertain: new Set() };
    let killedWithWritesInFlight = 0;

    for (let round = 0; round < rounds; round += 1) {
      const { child, url, exited } = await startCli(dataFile);
      // Everything acknowledged before the last kill is served again after the restart.
      const listed = await call(url, `${aclPath}?limit=1`, { auth });
      const live = (id: string): boolean => !ledger.deleted.has(id) && !ledger.uncertain.has(id);
      const expected = [...ledger.created.values()].filter(live).length;
      if (isFailure(listed)) throw new Error(`list failed: ${listed.failure}`);
      expect((listed.body as { meta: { total_count: number } }).meta.total_count).toBeGreaterThanOrEqual(expected);

      // Kill once a random number of writes of this round were acknowledged, with others in flight.
      const killAfter = 3 + Math.floor(Math.random() * 25);
      let acknowledged = 0;
      let inFlight = 0;
      let killed = false;
      const deletable = [...ledger.created.values()].filter(live);
      const worker = async (client: number): Promise<void> => {
        for (let index = 0; !killed; index += 1) {
          const remove = index % 3 === 2 ? deletable.pop() : undefined;
          inFlight += 1;
          const name = `r${round}-c${client}-${index}`;
          const answer = remove
            ? await call(url, `${aclPath}${remove}/`, { method: 'DELETE', auth })
            : await call(url, aclPath, {
                method: 'POST',
                auth,
                body: { name, ip_addresses: [`10.${round}.${client}.${index % 250}`] },
              });
          inFlight -= 1;
          if (isFailure(answer)) {
            if (remove) ledger.uncertain.add(remove);
            return;
          }
          if (remove && answer.status === 204) ledger.deleted.add(remove);
          else if (!remove && answer.status === 201)
            ledger.created.set(name, (answer.body as { ipacl_uuid: string }).ipacl_uuid);
          else throw new Error(`unexpected answer ${answer.status}: ${JSON.stringify(answer.body)}`);
          acknowledged += 1;
          if (acknowledged >= killAfter && !killed) {
            killed = true;
            if (inFlight > 0) killedWithWritesInFlight += 1;
            child.kill('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: clients }, (_, client) => worker(client)));
      await exited;
      checkSaved(await readFile(dataFile, 'utf8'), dataFile, ledger);
    }

    // Most kills hit while other writes were being handled, which is the case worth testing.
    expect(killedWithWritesInFlight).toBeGreaterThan(rounds / 2);
    const { url, child, exited } = await startCli(dataFile);
    const count = checkSaved(await readFile(dataFile, 'utf8'), dataFile, ledger);
    const listed = await call(url, `${aclPath}?limit=1`, { auth });
    expect(listed).toMatchObject({ status: 200, body: { meta: { total_count: count } } });
    child.kill('SIGTERM');
    await exited;
  }, 120_000);
});
