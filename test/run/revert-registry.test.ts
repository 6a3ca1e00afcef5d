import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifests } from '../../src/run/apply-run.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { revertApply } from '../../src/run/revert-run.js';
import { repository } from '../e2e/cli.js';
import { startHarness, type Harness } from './harness.js';

// The revert of an apply that registered a profile, its brand and two campaigns with `--wait`: the
// campaigns created while it waited are recorded as creates (with their requests), so the revert
// deletes them; its plan, saved and applied, is not reported stale; and while a campaign a later
// apply registered keeps the brand, the brand's delete is blocked and its profile is kept, the plan
// asks for no approval it does not need and says why each delete goes.

let harness: Harness;
let globals: GlobalOptions;
/** The second test's: another account, with its own state. */
let outlet: GlobalOptions;
let acme: string;
const approvals = approvalsFrom({});

beforeAll(async () => {
  harness = await startHarness({ registryDelayMs: 100 });
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'acme.state.json') };
  outlet = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'outlet.state.json') };
  acme = await readFile(path.join(repository, 'examples/10dlc/acme.yaml'), 'utf8');
});
afterAll(async () => {
  await harness.close();
});

async function apply(file: string, waitMs: number, account = 0) {
  return applyManifests(
    { source: { paths: [file], values: { value: [] } }, approvals, options: {}, parallelism: 4, waitMs },
    account === 0 ? globals : outlet,
    harness.context(harness.envOf(account)),
    { planned: () => ({}) },
  );
}

const quiet = { planned: () => ({}) };

describe('the revert of an apply that registered a brand and its campaigns', () => {
  it('records the campaigns created during --wait as creates, deletes them through the gates, and applies the saved revert as reviewed', async () => {
    await harness.write('acme.yaml', acme);
    const first = await apply('acme.yaml', 60_000);
    if (first.mode !== 'apply' || first.outcome.status !== 'applied') throw new Error(JSON.stringify(first));
    expect(
      first.outcome.record.type === 'apply'
        ? first.outcome.record.changes.map((change) => [change.address, change.action, change.requests, change.result])
        : [],
    ).toEqual([
      ['Profile/acme-retail', 'create', 1, 'done'],
      ['Brand/acme-retail', 'create', 1, 'done'],
      ['Campaign/acme-care-and-offers', 'create', 1, 'done'],
      ['Campaign/acme-orders', 'create', 1, 'done'],
    ]);
    const seq = first.outcome.record.seq;
    const context = harness.context(harness.envOf(0));

    // Through the irreversible gate, as any delete of a registration.
    const refused = await revertApply({ seq, mode: 'apply', approvals, parallelism: 4, waitMs: 0 }, globals, context, {
      planned: () => ({ approve: async () => true }),
    });
    expect(refused.mode === 'apply' && refused.outcome.status === 'refused' ? refused.outcome.violations : []).toEqual(
      ['Campaign/acme-orders', 'Campaign/acme-care-and-offers', 'Brand/acme-retail'].map((address) => ({
        code: 'irreversible',
        address,
        message: `${address} would be deleted, which cannot be undone; approve it with --allow-irreversible ${address}`,
      })),
    );

    const allowed = approvalsFrom({
      allowIrreversible: ['Brand/acme-retail', 'Campaign/acme-orders', 'Campaign/acme-care-and-offers'],
    });
    const saved = await revertApply(
      { seq, mode: 'save', out: 'revert-acme.json', approvals: allowed },
      globals,
      context,
      quiet,
    );
    if (saved.mode !== 'saved') throw new Error(saved.mode);
    expect(saved.violations).toEqual([]);
    expect(saved.plan.changes.map((change) => [change.action, change.address, change.reasons[0]])).toEqual(
      ['Campaign/acme-orders', 'Campaign/acme-care-and-offers', 'Brand/acme-retail', 'Profile/acme-retail'].map(
        (address) => ['delete', address, `created by apply #${seq}; the revert deletes it`],
      ),
    );

    const applied = await applyManifests(
      {
        source: { savedPlan: path.join(harness.folder, 'revert-acme.json') },
        approvals,
        options: {},
        parallelism: 4,
        waitMs: 0,
      },
      globals,
      context,
      quiet,
    );
    if (applied.mode !== 'apply' || applied.outcome.status !== 'applied') throw new Error(JSON.stringify(applied));
    expect(applied.outcome.record).toMatchObject({ trigger: 'revert', reverts: seq, result: 'applied' });
    expect(
      applied.outcome.record.type === 'apply'
        ? applied.outcome.record.changes.map((change) => `${change.action} ${change.address} ${change.result}`)
        : [],
    ).toEqual([
      'delete Campaign/acme-orders done',
      'delete Campaign/acme-care-and-offers done',
      'delete Brand/acme-retail done',
      'delete Profile/acme-retail done',
    ]);
  });

  it('keeps the brand a later campaign holds, and its profile, blocked without asking to approve what is not sent; the saved revert applies', async () => {
    // A fresh profile: the one above registered its one brand.
    const renamed = acme
      .replaceAll('acme-retail', 'acme-outlet')
      .replace('ein: 81-0000042', 'ein: 81-0000043')
      .replace('company_name: Acme Retail Inc.', 'company_name: Acme Outlet Inc.');
    await harness.write('outlet.yaml', renamed);
    const first = await apply('outlet.yaml', 60_000, 1);
    if (first.mode !== 'apply' || first.outcome.status !== 'applied') throw new Error(JSON.stringify(first));
    const seq = first.outcome.record.seq;
    // A later apply registers a third campaign under the same brand.
    const care = renamed.slice(
      renamed.indexOf('kind: Campaign\nmetadata:\n  name: acme-care-and-offers') - 'apiVersion: telform/v1\n'.length,
    );
    await harness.write(
      'outlet.yaml',
      `${renamed}---\n${care.replace('name: acme-care-and-offers', 'name: acme-returns')}`,
    );
    const later = await apply('outlet.yaml', 60_000, 1);
    expect(later).toMatchObject({ mode: 'apply', outcome: { status: 'applied' } });

    const context = harness.context(harness.envOf(1));
    const allowed = approvalsFrom({ allowIrreversible: ['Campaign/acme-orders', 'Campaign/acme-care-and-offers'] });
    const saved = await revertApply(
      { seq, mode: 'save', out: 'revert-outlet.json', approvals: allowed },
      outlet,
      context,
      quiet,
    );
    if (saved.mode !== 'saved') throw new Error(saved.mode);
    expect(saved.violations).toEqual([]);
    expect(saved.plan.changes.map((change) => [change.action, change.address, change.reasons.at(-1)])).toEqual([
      [
        'blocked',
        'Brand/acme-outlet',
        expect.stringMatching(
          /^the brand has 1 active or processing campaign\(s\) \(\w+\); the API refuses to delete a brand until they are deleted$/,
        ),
      ],
      ['delete', 'Campaign/acme-orders', `created by apply #${seq}; the revert deletes it`],
      ['delete', 'Campaign/acme-care-and-offers', `created by apply #${seq}; the revert deletes it`],
      [
        'blocked',
        'Profile/acme-outlet',
        'Brand/acme-outlet stays (its delete is blocked) and refers to it: it is not deleted from under Brand/acme-outlet',
      ],
    ]);
    expect(saved.plan.summary).toMatchObject({ delete: 2, blocked: 2, irreversible: 2 });
    expect(saved.plan.required_approvals).toEqual([
      { flag: '--allow-irreversible Campaign/acme-orders', given: true },
      { flag: '--allow-irreversible Campaign/acme-care-and-offers', given: true },
    ]);

    const applied = await applyManifests(
      {
        source: { savedPlan: path.join(harness.folder, 'revert-outlet.json') },
        approvals,
        options: {},
        parallelism: 4,
        waitMs: 0,
      },
      outlet,
      context,
      quiet,
    );
    if (applied.mode !== 'apply' || applied.outcome.status !== 'applied') throw new Error(JSON.stringify(applied));
    expect(
      applied.outcome.record.type === 'apply'
        ? applied.outcome.record.changes.map((change) => `${change.action} ${change.address} ${change.result}`)
        : [],
    ).toEqual([
      'blocked Brand/acme-outlet blocked',
      'delete Campaign/acme-orders done',
      'delete Campaign/acme-care-and-offers done',
      'blocked Profile/acme-outlet blocked',
    ]);
    expect(await harness.entry('outlet.state.json', 'Profile/acme-outlet')).toBeDefined();
    expect(await harness.entry('outlet.state.json', 'Campaign/acme-returns')).toBeDefined();
  });
});
