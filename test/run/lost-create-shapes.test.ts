// A create whose answer is lost, in an account whose list rows carry no alias: it is never sent again blind.
// The apply that lost the answer does not send it again; the next run identifies the object from what the
// reads do show (the brand, use case, samples, the time it was made) and adopts it: one object, never two.
import { afterEach, describe, expect, it } from 'vitest';
import { changeLines, startShapedRun, type ShapedRun } from './shapes-harness.js';

let run: ShapedRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

const brand = `apiVersion: telform/v1
kind: Brand
metadata:
  name: globex-support
spec:
  profile_uuid: 5eed0000-0000-4000-8000-000000000002
  brand_alias: Globex Support
`;

const campaign = `apiVersion: telform/v1
kind: Campaign
metadata:
  name: globex-care
spec:
  brand_id: { ref: globex-support }
  vertical: TECHNOLOGY
  usecase: CUSTOMER_CARE
  description: Replies to support tickets opened by Globex customers through the help centre.
  sample1: "Globex: ticket 5521 is resolved. Reply REOPEN if the problem is back, STOP to opt out."
  sample2: "Globex: an engineer picked up ticket 5521 and will call you today. Reply STOP to opt out."
  message_flow: Customers give a mobile number and tick the SMS updates box when they open a ticket.
  help_message: "Globex Support: visit support.example.com or call 1-800-555-0199."
  optout_message: "Globex Support: you will receive no more ticket messages."
  subscriber_optin: true
  subscriber_optout: true
  subscriber_help: true
  direct_lending: false
  embedded_link: false
  embedded_phone: true
  age_gated: false
  affiliate_marketing: false
`;

const profile = `apiVersion: telform/v1
kind: Profile
metadata:
  name: acme-retail
spec:
  profile_alias: Acme Retail
  customer_type: DIRECT
  entity_type: PRIVATE
  company_name: Acme Retail Inc.
  vertical: RETAIL
  ein: 81-0000042
  ein_issuing_country: US
  website: https://acme.example.com
  address: { street: 42 Market Street, city: San Francisco, state: CA, postal_code: "94105", country: US }
  authorized_contact:
    { first_name: Ada, last_name: Moreno, email: ada@acme.example.com, phone: "+14155550142", title: Ops, seniority: DIRECTOR }
`;

async function loseAnswers(target: ShapedRun, on: boolean): Promise<void> {
  target.emulator.controls.update({ faults: on ? 'lost=1,methods=POST,seed=1' : null });
}

describe('a create whose answer was lost, with list rows that carry no alias', () => {
  it('Campaign: not registered again; the next apply adopts the one the registry holds', async () => {
    run = await startShapedRun({ rowsWithoutAlias: true });
    await run.write('brand.yaml', brand);
    await run.write('campaign.yaml', campaign);
    const first = await run.apply(['brand.yaml']);
    expect(first.status).toBe('applied');
    const account = run.emulator.runtime.state.accounts.get('MASHAPES000000000001');
    const brandId = (await run.ledger())['Brand/globex-support']?.id;
    const campaignsOfBrand = (): string[] =>
      [...(account?.campaigns.values() ?? [])]
        .filter((item) => item.brand_id === brandId)
        .map((item) => item.campaign_id);

    await loseAnswers(run, true);
    await run.apply(['brand.yaml', 'campaign.yaml']).catch(() => undefined);
    await loseAnswers(run, false);
    expect(campaignsOfBrand()).toHaveLength(1);

    const between = await run.plan(['brand.yaml', 'campaign.yaml']);
    expect(
      changeLines(between),
      JSON.stringify(between.changes.map((c) => c.reasons)) + between.warnings.join('|'),
    ).toEqual([]);
    const again = await run.apply(['brand.yaml', 'campaign.yaml']);
    expect(again.status, run.notes.join('\n')).toBe('no_changes');
    expect(campaignsOfBrand()).toHaveLength(1);
    expect((await run.ledger())['Campaign/globex-care']?.id).toBe(campaignsOfBrand()[0]);
    expect(changeLines(await run.plan(['brand.yaml', 'campaign.yaml']))).toEqual([]);
  });

  it('Brand: not registered again; the next apply adopts the brand its profile made', async () => {
    run = await startShapedRun({ rowsWithoutAlias: true });
    await run.write('brand.yaml', brand);
    await loseAnswers(run, true);
    await run.apply(['brand.yaml']).catch(() => undefined);
    await loseAnswers(run, false);
    const account = run.emulator.runtime.state.accounts.get('MASHAPES000000000001');
    const brands = (): string[] =>
      [...(account?.brands.values() ?? [])]
        .filter((item) => item.profile_uuid === '5eed0000-0000-4000-8000-000000000002')
        .map((item) => item.brand_id);
    expect(brands()).toHaveLength(1);
    const again = await run.apply(['brand.yaml']);
    expect(again.status, run.notes.join('\n')).toBe('no_changes');
    expect(brands()).toHaveLength(1);
    expect((await run.ledger())['Brand/globex-support']?.id).toBe(brands()[0]);
  });

  it('Profile: not created again; the next apply adopts it or blocks, never a second profile', async () => {
    run = await startShapedRun({ rowsWithoutAlias: true });
    await run.write('profile.yaml', profile);
    const account = run.emulator.runtime.state.accounts.get('MASHAPES000000000001');
    const named = (): number =>
      [...(account?.profiles.values() ?? [])].filter((item) => item.company_name === 'Acme Retail Inc.').length;
    await loseAnswers(run, true);
    await run.apply(['profile.yaml']).catch(() => undefined);
    await loseAnswers(run, false);
    expect(named()).toBe(1);
    const plan = await run.plan(['profile.yaml']);
    expect(changeLines(plan).filter((line) => line.endsWith(' create'))).toEqual([]);
    await run.apply(['profile.yaml']).catch(() => undefined);
    expect(named()).toBe(1);
  });
});
