import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, emulatorForCli, runCli, type EmulatorForCli, ownerOf } from './cli.js';
import { profileSpec } from './examples.js';

/** The Profile kind end to end: create, update, replace, delete, and the API's refusals said in the plan. */
let harness: EmulatorForCli;
let folder: string;

const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

function doc(kind: string, name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion: 'telform/v1', kind, metadata: { name }, spec });
}

const shop = (changes: Record<string, unknown> = {}) => profileSpec('Shop Inc.', '81-0000077', changes);

async function write(file: string, documents: string[]): Promise<string> {
  await writeFile(path.join(folder, file), documents.join('\n---\n'));
  return file;
}

async function ledgerId(state: string, address: string): Promise<string> {
  const ledger = JSON.parse(await readFile(path.join(folder, state), 'utf8')) as {
    resources: Record<string, { id: string }>;
  };
  return (ledger.resources[address] as { id: string }).id;
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 60_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-profiles-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the Profile kind', () => {
  it('creates a profile, updates the nested address field by field, and replaces it for a field the API does not update', async () => {
    const file = await write('shop.yaml', [doc('Profile', 'shop', shop())]);
    const created = await cli(['apply', '-f', file, '--state', 'shop.json', '--auto-approve']);
    expect(created.code).toBe(0);
    const id = await ledgerId('shop.json', 'Profile/shop');
    expect(created.stderr).toContain(`created  Profile/shop (id ${id})`);
    const stored = await callApi(harness.emulator, 'GET', `/Profile/${id}/`);
    expect(stored.body.profile).toMatchObject({
      profile_alias: 'shop',
      profile_type: 'SECONDARY',
      company_name: 'Shop Inc.',
    });
    expect((await cli(['plan', '-f', file, '--state', 'shop.json', '--detailed-exitcode'])).code).toBe(0);

    const address = { street: '1 Main St', city: 'Dallas', state: 'TX', postal_code: '73301', country: 'US' };
    await write('shop.yaml', [doc('Profile', 'shop', shop({ company_name: 'Shop LLC', address }))]);
    const update = await cli(['plan', '-f', file, '--state', 'shop.json']);
    expect(update.stdout).toContain(
      [
        '  # Profile/shop will be updated in place',
        `  ~ Profile/shop (id ${id})`,
        '      ~ company_name: "Shop Inc." → "Shop LLC"',
        '      ~ address.city: "Austin" → "Dallas"',
      ].join('\n'),
    );
    expect((await cli(['apply', '-f', file, '--state', 'shop.json', '--auto-approve'])).code).toBe(0);
    expect((await callApi(harness.emulator, 'GET', `/Profile/${id}/`)).body.profile).toMatchObject({
      company_name: 'Shop LLC',
      address,
    });
    expect((await cli(['plan', '-f', file, '--state', 'shop.json', '--detailed-exitcode'])).code).toBe(0);

    await write('shop.yaml', [
      doc('Profile', 'shop', shop({ company_name: 'Shop LLC', address, customer_type: 'RESELLER' })),
    ]);
    const replace = await cli(['plan', '-f', file, '--state', 'shop.json']);
    expect(replace.stdout).toContain(
      [
        '  # Profile/shop must be replaced (create the new one, then delete the old)',
        '  #   customer_type cannot be updated in place, so a new Profile is created and the old one deleted',
      ].join('\n'),
    );
    const replaced = await cli(['apply', '-f', file, '--state', 'shop.json', '--auto-approve', '--force-deletes']);
    expect(replaced.code).toBe(0);
    const newId = await ledgerId('shop.json', 'Profile/shop');
    expect(newId).not.toBe(id);
    expect((await callApi(harness.emulator, 'GET', `/Profile/${id}/`)).status).toBe(404);
    expect((await cli(['plan', '-f', file, '--state', 'shop.json', '--detailed-exitcode'])).code).toBe(0);
  });

  it('registers a brand from a profile in one apply, then refuses to replace or delete the profile the brand uses', async () => {
    const profile = doc('Profile', 'cafe', profileSpec('Cafe Inc.', '81-0000078'));
    const brand = doc('Brand', 'cafe', { profile_uuid: { ref: 'cafe' } });
    const file = await write('cafe.yaml', [profile, brand]);
    // The account passes from the test above's state to this one, explicitly (it owns the account).
    expect(
      (await cli(['--state', 'cafe.json', 'state', 'claim', '--take-over', await ownerOf(harness.emulator)])).code,
    ).toBe(0);
    const applied = await cli(['apply', '-f', file, '--state', 'cafe.json', '--auto-approve']);
    expect(applied.stdout).toContain(
      'Apply complete: 2 created, 0 updated, 0 replaced, 0 deleted, 0 adopted. Pending: 0. Blocked: 0. Failed: 0.',
    );
    const profileId = await ledgerId('cafe.json', 'Profile/cafe');
    const brandId = await ledgerId('cafe.json', 'Brand/cafe');
    const brandRecord = await callApi(harness.emulator, 'GET', `/10dlc/Brand/${brandId}/`);
    expect(brandRecord.body.brand).toMatchObject({ profile_uuid: profileId });

    await write('cafe.yaml', [
      doc('Profile', 'cafe', profileSpec('Cafe Inc.', '81-0000078', { customer_type: 'RESELLER' })),
      brand,
    ]);
    const replace = await cli(['plan', '-f', file, '--state', 'cafe.json', '--detailed-exitcode']);
    expect(replace.stdout).toContain(
      [
        '  # Profile/cafe cannot be changed',
        `  #   customer_type can only change by replacing it, and the old one cannot be deleted now: Brand ${brandId} was registered from it and still refers to it; delete the brand first`,
      ].join('\n'),
    );

    // The brand keeps the profile by its uuid; the profile leaves the manifests.
    await write('cafe.yaml', [doc('Brand', 'cafe', { profile_uuid: profileId })]);
    const remove = await cli(['plan', '-f', file, '--state', 'cafe.json']);
    expect(remove.stdout).toContain(
      [
        '  # Profile/cafe cannot be changed',
        '  #   removed from the manifests',
        `  #   Brand ${brandId} was registered from it and still refers to it; delete the brand first`,
      ].join('\n'),
    );
    const refused = await cli(['apply', '-f', file, '--state', 'cafe.json', '--auto-approve']);
    expect(refused.stdout).toContain('Blocked: 1.');
    expect((await callApi(harness.emulator, 'GET', `/Profile/${profileId}/`)).status).toBe(200);
  });

  it('imports the profiles, refs brands to them, and refuses to delete the primary profile', async () => {
    // The states of the tests above are treated as lost: this one takes the account over from their owner, then imports.
    expect(
      (await cli(['--state', 'import.json', 'state', 'claim', '--take-over', await ownerOf(harness.emulator)])).code,
    ).toBe(0);
    const run = await cli(['import', '--out', 'imported', '--state', 'import.json', '--kinds', 'Profile,Brand']);
    expect(run.code).toBe(0);
    const brands = await readFile(path.join(folder, 'imported/brand.yaml'), 'utf8');
    expect(brands).toContain('profile_uuid: { ref: cafe }');
    const profiles = await readFile(path.join(folder, 'imported/profile.yaml'), 'utf8');
    expect(profiles).toContain('  name: northwind-dental\n');
    const plan = await cli(['plan', '-f', 'imported', '--state', 'import.json', '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);

    // Without its document the primary profile would be deleted: the plan says the API never does that.
    const documents = profiles.split('\n---\n').filter((text) => !text.includes('name: northwind-dental\n'));
    await writeFile(path.join(folder, 'imported/profile.yaml'), documents.join('\n---\n'));
    const remove = await cli(['plan', '-f', 'imported', '--state', 'import.json']);
    expect(remove.stdout).toContain(
      [
        '  # Profile/northwind-dental cannot be changed',
        '  #   removed from the manifests',
        "  #   it is the account's primary profile, which the API never deletes",
      ].join('\n'),
    );
  });
});
