import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, runCli, startCli, type EmulatorForCli } from './cli.js';

/**
 * The way back in an emergency, through the built CLI: three applies touching one trunk; `revert 2`
 * refuses, naming the field #3 changed again; `revert 2 --over 3` applies; `history verify` passes; a
 * fourth apply SIGKILLed mid-way appears in the history after the next run; the last record removed by
 * hand makes `verify` exit 1 naming the truncation.
 */
let api: EmulatorForCli;
let folder: string;
const cli = (args: string[]) => runCli(args, { cwd: folder, env: api.env });
const acl = (name: string, ip: string) =>
  JSON.stringify({ apiVersion: 'telform/v1', kind: 'TrunkIpAcl', metadata: { name }, spec: { ip_addresses: [ip] } });
const trunk = (spec: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'telform/v1',
    kind: 'Trunk',
    metadata: { name: 'edge' },
    spec: { trunk_direction: 'outbound', ipacl_uuid: { ref: 'edge' }, ...spec },
  });
const write = (documents: string[]) => writeFile(path.join(folder, 'edge.yaml'), documents.join('\n---\n'));

async function setLatency(ms: number): Promise<void> {
  await fetch(`${api.emulator.url}/__emulator/faults/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ latency: ms }),
  });
}

beforeAll(async () => {
  api = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-revert-emergency-'));
});
afterAll(async () => {
  await api?.emulator.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('revert in an emergency', () => {
  it('refuses a conflict naming the later apply, takes it with --over, records a killed apply, and names a truncated history', async () => {
    const edge = acl('edge', '203.0.113.60');
    for (const spec of [
      { name: 'edge-one', secure: true },
      { name: 'edge-two', secure: false },
      { name: 'edge-three', secure: false, trunk_status: 'disabled' },
    ]) {
      await write([edge, trunk(spec)]);
      expect((await cli(['apply', '-f', 'edge.yaml', '--auto-approve'])).code).toBe(0);
    }

    const refused = await cli(['revert', '2', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'conflict: Trunk/edge name was changed again by apply #3; it is not put back, and the revert is refused (--over 3 puts it back anyway)',
    );
    expect(refused.stderr).toContain(
      'error: the revert of apply #2 is refused: Trunk/edge name was changed again by apply #3; put it back anyway with --over 3; nothing was sent',
    );

    const taken = await cli(['revert', '2', '--over', '3', '--auto-approve']);
    expect(taken.code).toBe(0);
    expect(taken.stdout).toContain(
      'revert of apply #2: this plan puts back Trunk/edge name, secure to the values before #2',
    );
    expect(taken.stdout).toContain('--over 3: Trunk/edge name is put back although apply #3 changed it again');
    expect(taken.stderr).toContain('recorded as #4 in the history (revert of #2)');
    const verified = await cli(['history', 'verify']);
    expect([verified.code, verified.stdout]).toEqual([
      0,
      'the history of telform.state.json verifies: 4 records, #1 to #4, each chained to the one before, the newest as the state anchors it\n',
    ]);

    // A fifth apply, killed once a few of its creates are done: the next run records it from the journal.
    const names = Array.from({ length: 6 }, (_, index) => `spare-${index}`);
    await write([
      edge,
      trunk({ name: 'edge-one', secure: true, trunk_status: 'disabled' }),
      ...names.map((name, index) => acl(name, `198.51.100.${index + 1}`)),
    ]);
    await setLatency(300);
    try {
      const victim = startCli(['apply', '-f', 'edge.yaml', '--auto-approve', '--parallelism', '1'], {
        cwd: folder,
        env: api.env,
      });
      for (;;) {
        const journal = await readFile(path.join(folder, 'telform.state.json.journal'), 'utf8').catch(() => '');
        if ((journal.match(/"type":"result"/g) ?? []).length >= 2) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      victim.kill('SIGKILL');
      expect((await victim.done).code).toBeNull();
    } finally {
      await setLatency(0);
    }
    const next = await cli(['apply', '-f', 'edge.yaml', '--auto-approve']);
    expect(next.code).toBe(0);
    const records = (await readFile(path.join(folder, 'telform.state.json.history'), 'utf8'))
      .trim()
      .split('\n')
      .map(
        (line) =>
          JSON.parse(line) as {
            seq: number;
            interrupted?: unknown;
            changes: Array<{ address: string; action: string }>;
          },
      );
    const killed = records.find((record) => record.seq === 5);
    expect(killed?.interrupted).toBeDefined();
    expect(killed?.changes.filter((change) => change.action === 'create').length).toBeGreaterThanOrEqual(2);
    expect(records.at(-1)?.seq).toBe(6);
    expect((await cli(['history'])).stdout).toContain('apply (interrupted; recorded from its journal by the next run)');
    expect((await cli(['history', 'verify'])).code).toBe(0);

    // The last record removed by hand: verify names it.
    const lines = (await readFile(path.join(folder, 'telform.state.json.history'), 'utf8')).trim().split('\n');
    await writeFile(path.join(folder, 'telform.state.json.history'), `${lines.slice(0, -1).join('\n')}\n`);
    const truncated = await cli(['history', 'verify']);
    expect([truncated.code, truncated.stderr]).toEqual([
      1,
      'error: the history of telform.state.json does not verify: the history ends at #5, but the ledger anchors #6 as its newest: #6 was removed from its end\n',
    ]);
  }, 120_000);
});
