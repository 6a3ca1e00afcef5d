// Create answers in every shape production uses (the id at the top level, nested under the kind, camelCase):
// an apply of every kind tracks each new object by the id its answer carried, and the next plan is empty.
import { afterEach, describe, expect, it } from 'vitest';
import { changeLines, startShapedRun, type ShapedRun } from './shapes-harness.js';

let run: ShapedRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

describe('create answers', () => {
  for (const createAnswer of ['flat', 'nested', 'camel'] as const) {
    it(`are read with the id ${createAnswer === 'flat' ? 'at the top level' : createAnswer === 'nested' ? 'nested under the kind' : 'in camelCase'}`, async () => {
      run = await startShapedRun({ createAnswer });
      await run.copyExample('examples/full-account');
      const outcome = await run.apply();
      expect(outcome.status).toBe('applied');
      if (outcome.status !== 'applied') return;
      expect(outcome.failed, run.notes.join('\n')).toBe(false);

      const ledger = await run.ledger();
      const account = run.emulator.runtime.state.accounts.get('MASHAPES000000000001');
      expect(ledger['Brand/globex-support']?.id && account?.brands.has(ledger['Brand/globex-support'].id)).toBe(true);
      expect(ledger['Campaign/globex-care']?.id && account?.campaigns.has(ledger['Campaign/globex-care'].id)).toBe(
        true,
      );
      expect(ledger['Trunk/support-inbound']?.id && account?.trunks.has(ledger['Trunk/support-inbound'].id)).toBe(true);
      expect(changeLines(await run.plan())).toEqual([]);
    });
  }

  it('are read for a profile created with its id nested or in camelCase', async () => {
    for (const createAnswer of ['nested', 'camel'] as const) {
      run = await startShapedRun({ createAnswer });
      await run.copyExample('examples/10dlc');
      const outcome = await run.apply(['manifests/acme.yaml']);
      expect(outcome.status).toBe('applied');
      if (outcome.status !== 'applied') return;
      expect(outcome.failed, run.notes.join('\n')).toBe(false);
      const ledger = await run.ledger();
      const account = run.emulator.runtime.state.accounts.get('MASHAPES000000000001');
      expect(account?.profiles.has(ledger['Profile/acme-retail']?.id ?? '')).toBe(true);
      expect(account?.campaigns.has(ledger['Campaign/acme-orders']?.id ?? '')).toBe(true);
      await run.close();
      run = undefined;
    }
  });
});
