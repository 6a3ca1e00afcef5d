// A 403 on one list telform reads only for context (an account's permissions, not a whole product): plan,
// apply and import go on, and the list is skipped with one note. For each list the emulator can refuse, a
// folder whose documents need that list only for context.
import { afterEach, describe, expect, it } from 'vitest';
import type { ShapeVariation } from '../../src/emulator/variation.js';
import { changeLines, startShapedRun, type ShapedRun } from './shapes-harness.js';

let run: ShapedRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
});

const documents = {
  trunks: `apiVersion: telform/v1
kind: OriginationUri
metadata:
  name: pbx-uri
spec:
  uri: sip:pbx.example.com:5060
---
apiVersion: telform/v1
kind: Trunk
metadata:
  name: pbx-inbound
spec:
  trunk_direction: inbound
  primary_uri_uuid: { ref: pbx-uri }
`,
  brand: `apiVersion: telform/v1
kind: Brand
metadata:
  name: globex-support
spec:
  profile_uuid: 5eed0000-0000-4000-8000-000000000002
  brand_alias: Globex Support
`,
  profile: `apiVersion: telform/v1
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
`,
  acl: `apiVersion: telform/v1
kind: TrunkIpAcl
metadata:
  name: office
spec:
  ip_addresses: [192.0.2.10]
`,
  credential: `apiVersion: telform/v1
kind: SipCredential
metadata:
  name: desk
spec:
  username: desk.agents
  password: { fromEnv: SUPPORT_SIP_PASSWORD }
`,
};

const cases: Array<{
  list: ShapeVariation['forbiddenList'];
  path: string;
  folder: keyof typeof documents;
  creates: string[];
}> = [
  { list: 'numbers', path: '/Number/', folder: 'trunks', creates: ['OriginationUri/pbx-uri', 'Trunk/pbx-inbound'] },
  { list: 'campaigns', path: '/10dlc/Campaign/', folder: 'brand', creates: ['Brand/globex-support'] },
  { list: 'brands', path: '/10dlc/Brand/', folder: 'profile', creates: ['Profile/acme-retail'] },
  { list: 'trunks', path: '/Zentrunk/Trunk/', folder: 'acl', creates: ['TrunkIpAcl/office'] },
  { list: 'applications', path: '/Application/', folder: 'credential', creates: ['SipCredential/desk'] },
];

describe('a 403 on one list read only for context', () => {
  for (const { list, path, folder, creates } of cases) {
    it(`${path}: plan, apply and import go on, with one note`, async () => {
      run = await startShapedRun({ forbiddenList: list });
      await run.write('folder.yaml', documents[folder]);
      const first = await run.plan(['folder.yaml']);
      expect(changeLines(first)).toEqual(creates.map((address) => `${address} create`));
      expect(first.warnings.filter((warning) => warning.includes('403'))).toHaveLength(1);
      const outcome = await run.apply(['folder.yaml']);
      expect(outcome.status).toBe('applied');
      if (outcome.status === 'applied') expect(outcome.failed, run.notes.join('\n')).toBe(false);
      expect(changeLines(await run.plan(['folder.yaml']))).toEqual([]);
      run.notes.length = 0;
      const imported = await run.importAll();
      expect(imported.skipped.sort()).toEqual([...creates].sort());
      expect(run.notes.filter((note) => note.includes('403'))).toHaveLength(1);
      expect(run.notes.find((note) => note.includes('403'))).toContain(path);
    });
  }

  it('a brand whose campaigns, or a profile whose brands, could not be read is not deleted: the worst is assumed', async () => {
    const { brandLive } = await import('../../src/resources/brand.js');
    const { profileLive } = await import('../../src/resources/profile-live.js');
    const brand = { id: 'B1', spec: {}, facts: { unreadContext: 'campaigns' as const } };
    expect(brandLive.deleteRefusal?.(brand, new Set())).toBe(
      'its campaigns could not be read (the API answered 403 to the campaign list), and the API refuses to delete a brand that has active campaigns: the worst is assumed',
    );
    const profile = { id: 'P1', spec: {}, facts: { unreadContext: 'brands' as const } };
    expect(profileLive.deleteRefusal?.(profile, new Set())).toBe(
      'the brands could not be read (the API answered 403 to the brand list), so one may still refer to it: the worst is assumed',
    );
  });
});
