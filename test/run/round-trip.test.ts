// Property test of the round trip on production-shaped accounts: for a generated account (the emulator's
// production objects plus a generated seed of held objects: legacy values, omitted fields, numbers in every
// link status), `import` writes manifests for every object that `validate` accepts, whose plan creates, deletes
// and replaces nothing; one apply of the imported secrets converges, and the next plan is empty. In process (src/run
// operations against an in-process emulator); each case's seed is written beside its manifests and printed
// by fast-check with the run's seed when a case fails.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startEmulator, type SeedInput } from '../../src/emulator/index.js';
import { findingProblem, lintCampaigns } from '../../src/manifest/campaign-lint.js';
import { loadManifests } from '../../src/manifest/load.js';
import { formatProblem } from '../../src/manifest/report.js';
import { applyReconciled } from '../../src/run/apply.js';
import type { GlobalOptions, RunContext } from '../../src/run/context.js';
import { importAccount } from '../../src/run/import.js';
import { approvalsFrom, reconcile, withReconciliation } from '../../src/run/reconcile.js';
import { connect } from './harness.js';

const account = { authId: 'MAROUNDTRIP000000001', authToken: 'round-trip-token-00000000000000000' };
/** Meets every password rule of the kinds that have one (5–20 characters, a special one, upper, lower, digit). */
const password = 'Rt9!secretPw1';

type Held = Record<string, unknown>;
const maybe = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arbitrary, { nil: undefined });
/** Drops the keys whose value was not generated: a held object omits what it never had. */
const compact = (object: Held): Held =>
  Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
const word = fc.stringMatching(/^[a-z][a-z0-9]{2,10}$/);
const alias = fc.oneof(fc.constant('testing'), word);

const contact = fc
  .record({
    first_name: maybe(fc.constantFrom('Ana', 'Raj', ' ')),
    last_name: maybe(fc.constantFrom('Lee', 'Iyer')),
    email: maybe(fc.constantFrom('ops@example.com', 'a.b@example.com')),
    phone: maybe(fc.constantFrom('919742763781', '+14155550123', '14155550123')),
    seniority: maybe(fc.constantFrom('admin', 'C_LEVEL', 'DIRECTOR')),
    name: maybe(fc.constant(' ')),
  })
  .map(compact);

const address = fc.oneof(
  fc.constant({ street: '', city: '', state: '', postal_code: '', country: '' }),
  fc.record({
    street: fc.constant('1 Main St'),
    city: fc.constant('Austin'),
    state: fc.constant('TX'),
    postal_code: fc.constant('73301'),
    country: fc.constantFrom('US', 'IN'),
  }),
);

const profile = fc
  .record({
    profile_alias: maybe(alias),
    customer_type: maybe(fc.constantFrom('DIRECT', 'RESELLER')),
    entity_type: maybe(fc.constantFrom('PUBLIC_PROFIT', 'PRIVATE_PROFIT', 'SOLE_PROPRIETOR', 'PRIVATE', 'NON_PROFIT')),
    company_name: maybe(fc.constantFrom('Acme Inc.', 'Blue Fin Co', 'Sam Okafor')),
    vertical: maybe(fc.constantFrom('TECHNOLOGY', 'RETAIL', 'nil')),
    ein: maybe(fc.constantFrom('29-0000021', '123456789')),
    ein_issuing_country: maybe(fc.constantFrom('US', 'in', 'nil')),
    alt_business_id_type: maybe(fc.constantFrom('NONE', 'DUNS')),
    website: maybe(fc.constantFrom('https://example.com', 'example.com')),
    address: maybe(address),
    authorized_contact: maybe(contact),
  })
  .map(compact);

const brand = fc
  .record({
    brand_alias: maybe(alias),
    brand_type: fc.constantFrom('STARTER', 'STANDARD'),
    entity_type: maybe(fc.constantFrom('SOLE_PROPRIETOR', 'PRIVATE_PROFIT', 'PUBLIC_PROFIT')),
    company_name: maybe(fc.constantFrom('Acme Inc.', 'Sam Okafor')),
    vertical: maybe(fc.constantFrom('nil', 'RETAIL')),
    ein_issuing_country: maybe(fc.constantFrom('nil', 'US', 'in')),
    address: maybe(address),
    authorized_contact: maybe(fc.oneof(fc.constant({}), contact)),
    onProfile: fc.boolean(),
  })
  .map(compact);

const attributeNames = [
  'age_gated',
  'direct_lending',
  'embedded_link',
  'embedded_phone',
  'subscriber_help',
  'subscriber_optin',
  'subscriber_optout',
];
const campaign = fc
  .record({
    campaign_alias: maybe(alias),
    usecase: maybe(fc.constantFrom('STARTER', 'CUSTOMER_CARE', 'MIXED')),
    sub_usecase: maybe(fc.constant('2FA,ACCOUNT_NOTIFICATION')),
    vertical: maybe(fc.constantFrom('TECHNOLOGY', 'PROFESSIONAL')),
    description: maybe(
      fc.constantFrom('Starter campaign', 'Support conversations with customers about their open tickets.'),
    ),
    sample1: maybe(fc.constantFrom('Code: 4821', 'Your ticket was updated; reply STOP to opt out.')),
    sample2: maybe(fc.constantFrom('See you soon', 'An agent replied; reply HELP for help.')),
    campaign_attributes: maybe(
      fc
        .subarray(attributeNames)
        .chain((names) =>
          fc
            .tuple(...names.map(() => fc.boolean()))
            .map((values) => Object.fromEntries(names.map((n, i) => [n, values[i]]))),
        ),
    ),
    registration_status: fc.constantFrom('ACTIVE', 'ACTIVE', 'EXPIRED', 'FAILED'),
    brandIndex: fc.nat(),
  })
  .map(compact);

const trunkCredential = fc
  .record({ username: fc.stringMatching(/^[a-z]{2,6}_[a-z0-9]{1,6}$/), name: maybe(word) })
  .map(compact);
const linkStatus = fc.constantFrom('REGISTERED', 'COMPLETED', 'FAILED', 'none', 'null', 'completed-without-campaign');

/** A generated account: held objects with consistent references, and numbers linked to its campaigns. */
const heldAccount = fc
  .record({
    profiles: fc.array(profile, { maxLength: 3 }),
    brands: fc.array(brand, { minLength: 1, maxLength: 3 }),
    campaigns: fc.array(campaign, { maxLength: 4 }),
    trunkCredentials: fc.array(trunkCredential, { maxLength: 2 }),
    numbers: fc.array(fc.record({ status: linkStatus, campaignIndex: fc.nat() }), { maxLength: 6 }),
  })
  .map(({ profiles, brands, campaigns, trunkCredentials, numbers }): SeedInput => {
    const hex = (index: number): string => index.toString(16).padStart(2, '0');
    const heldProfiles = profiles.map((item, index) => ({
      ...item,
      profile_uuid: `0b5e0000-0000-4000-8000-0000000000${hex(index)}`,
    }));
    let profileCursor = 0;
    const heldBrands = brands.map(({ onProfile, ...item }, index) => {
      const profileUuid =
        onProfile && profileCursor < heldProfiles.length ? heldProfiles[profileCursor++]?.profile_uuid : undefined;
      return compact({ ...item, brand_id: `BGEN0${hex(index)}`, profile_uuid: profileUuid });
    });
    const heldCampaigns = campaigns.map(({ brandIndex, ...item }, index) => ({
      ...item,
      campaign_id: `CGEN0${hex(index)}`,
      brand_id: heldBrands[(brandIndex as number) % heldBrands.length]?.brand_id,
    }));
    const active = heldCampaigns.filter((item) => (item as Held).registration_status === 'ACTIVE');
    const heldNumbers = numbers.map(({ status, campaignIndex }, index) => {
      const number = `161755501${String(index).padStart(2, '0')}`;
      const target = active[campaignIndex % Math.max(active.length, 1)];
      if ((status === 'REGISTERED' || status === 'COMPLETED' || status === 'FAILED') && target) {
        return { number, campaign_id: target.campaign_id, campaign_link_status: status };
      }
      if (status === 'null') return { number, row: { tendlc_registration_status: null, carrier: 'Plivo' } };
      if (status === 'completed-without-campaign')
        return { number, row: { tendlc_campaign_id: null, tendlc_registration_status: 'COMPLETED' } };
      return { number };
    });
    return {
      existing: {
        profiles: heldProfiles,
        brands: heldBrands,
        campaigns: heldCampaigns,
        trunk_credentials: trunkCredentials,
      },
      numbers: heldNumbers,
    };
  });

/** The changes of a plan by action, as `Kind/name action` lines (readable in a failure). */
function changesOf(
  plan: { changes: Array<{ address: string; action: string }> },
  actions: readonly string[],
): string[] {
  return plan.changes
    .filter((change) => actions.includes(change.action))
    .map((change) => `${change.address} ${change.action}`);
}

async function roundTrip(seed: SeedInput): Promise<void> {
  const emulator = await startEmulator({
    shapes: 'production',
    registryDelayMs: 0,
    accounts: [account],
    seedData: seed,
  });
  const folder = await mkdtemp(path.join(tmpdir(), 'telform-round-trip-'));
  try {
    // The case's seed beside its manifests: `telform emulator --shapes production --seed seed.yaml` replays it.
    await writeFile(path.join(folder, 'seed.yaml'), stringify(seed));
    const notes: string[] = [];
    const contextOf = (env: Record<string, string>): RunContext => ({
      io: { cwd: folder, env, stderr: (line) => notes.push(line) },
      connect,
    });
    const env = { TELFORM_AUTH_ID: account.authId, TELFORM_AUTH_TOKEN: account.authToken };
    const globals: GlobalOptions = { endpoint: emulator.url, state: path.join(folder, 'telform.state.json') };

    const imported = await importAccount({ kinds: [], out: 'imported', layout: 'per-kind' }, globals, contextOf(env));
    // What the account holds is a fact: a held value kept unchanged is never an error, so nothing is left out.
    expect(
      imported.refused.map((object) => `${object.address} (${object.id}): ${object.reason}`),
      'objects the import left out',
    ).toEqual([]);

    // `telform validate -f imported/`: the loader's problems and the 10DLC lint's errors.
    const loaded = await loadManifests(['imported'], { cwd: folder });
    const lint = lintCampaigns(loaded.model.resources).map(findingProblem);
    const errors = [...loaded.problems, ...lint].filter((problem) => problem.severity === 'error').map(formatProblem);
    expect(errors, 'validate of the imported folder').toEqual([]);

    const secrets = Object.fromEntries(
      imported.imported.flatMap((resource) => Object.values(resource.secretVariables)).map((name) => [name, password]),
    );
    const withSecrets = { ...env, ...secrets };
    const first = await reconcile({ paths: ['imported'] }, globals, approvalsFrom({}), contextOf(withSecrets), {
      lock: false,
    });
    await withReconciliation(first, async (run) => {
      expect(changesOf(run.plan, ['create', 'delete', 'replace']), 'the first plan after the import').toEqual([]);
    });

    const apply = await reconcile({ paths: ['imported'] }, globals, approvalsFrom({}), contextOf(withSecrets), {
      lock: true,
    });
    const outcome = await withReconciliation(apply, (run) => applyReconciled(run, { parallelism: 4, waitMs: 0 }));
    // Setting the secrets is the apply's only work; an account that holds none has nothing to apply.
    expect(outcome.status, `apply of the imported secrets: ${notes.join(' | ')}`).toBe(
      Object.keys(secrets).length > 0 ? 'applied' : 'no_changes',
    );

    const last = await reconcile({ paths: ['imported'] }, globals, approvalsFrom({}), contextOf(withSecrets), {
      lock: false,
    });
    await withReconciliation(last, async (run) => {
      expect(
        run.plan.changes
          .filter((change) => change.action !== 'noop')
          .map((change) => `${change.address} ${change.action}`),
        'the plan after one apply',
      ).toEqual([]);
    });
  } finally {
    await emulator.close();
    await rm(folder, { recursive: true, force: true });
  }
}

describe('the round trip on production-shaped accounts', () => {
  it('import → validate (0 errors) → plan (no create, delete, replace) → apply of the secrets → plan empty', async () => {
    // Few runs: each case is a whole account (the emulator's 300 production numbers included).
    await fc.assert(fc.asyncProperty(heldAccount, roundTrip), { numRuns: 4, endOnFailure: true });
  }, 240_000);
});
