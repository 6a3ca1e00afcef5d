// The benchmark's account: N resources spread over every kind, as manifests, plus what the account
// must hold before they can apply (applications for ApplicationSipAuth, business profiles for brands).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inBatches } from './emulator.mjs';

export const secretsEnv = { BENCH_SIP_PASSWORD: 'BenchSipPass1234', BENCH_TRUNK_PASSWORD: 'Trunk#Pass99' };

/** How many of each kind an account of `total` resources holds (the API's SipAuth quotas cap two kinds). */
export function shares(total) {
  const sipCredentials = Math.min(Math.round(total * 0.04), 200);
  // 99, not the API's 100: telform's ownership marker is one of the account's SIP IP ACLs.
  const sipAcls = Math.min(Math.round(total * 0.02), 99);
  const bindings = Math.min(Math.round(total * 0.02), sipCredentials);
  const brands = Math.max(1, Math.round(total * 0.01));
  const campaigns = 2 * brands;
  // Numbers the account holds, each attached to an inbound trunk and every other one linked to a campaign.
  const numbers = Math.round(total * 0.05);
  const rest = total - sipCredentials - sipAcls - bindings - brands - campaigns - numbers;
  const trunkAcls = Math.round(rest * 0.25);
  const trunkCredentials = Math.round(rest * 0.15);
  const uris = Math.round(rest * 0.2);
  const trunks = rest - trunkAcls - trunkCredentials - uris;
  return { sipCredentials, sipAcls, bindings, brands, campaigns, numbers, trunkAcls, trunkCredentials, uris, trunks };
}

// Samples and replies name the brand, as 10DLC lint (and the registry's vetters) ask.
const campaignSpec = (brand) =>
  [
    `  brand_id: { ref: ${brand} }`,
    '  vertical: RETAIL',
    '  usecase: MIXED',
    '  sub_usecases: [CUSTOMER_CARE, MARKETING]',
    '  description: Customer care conversations and monthly offers for loyalty members.',
    `  sample1: "${brand}: thanks for contacting us, an agent will reply soon. Reply STOP to opt out."`,
    `  sample2: "${brand}: members save 20% this weekend with code SPRING at example.com/offers. Reply STOP to opt out."`,
    '  message_flow: Members opt in on the member page of the website and confirm by replying YES.',
    `  help_message: "${brand}: help at example.com/help or 1-800-555-0100."`,
    `  optout_message: "${brand}: you are unsubscribed and will receive no more messages."`,
    '  subscriber_optin: true',
    '  subscriber_optout: true',
    '  subscriber_help: true',
    '  direct_lending: false',
    '  embedded_link: true',
    '  embedded_phone: false',
    '  age_gated: false',
    '  affiliate_marketing: false',
  ].join('\n');

/** The bench's numbers: 1 202 7xx xxxx, apart from the emulator's seeded ones, and never ending in 0000 (which its registry refuses to link). */
export const benchNumber = (index) => `1202${String(7_000_001 + index)}`;

const doc = (kind, name, spec) => `apiVersion: telform/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n${spec}\n`;
const octets = (index) => `10.${Math.floor(index / 250) % 250}.${index % 250}.1`;

/**
 * The manifests of an account: one document a resource. `changed` selects the resources whose
 * second version differs (an added address, a trunk turned secure, another URI port), 10% of all.
 */
export function manifests(total, { profiles, apps, changed = false }) {
  const share = shares(total);
  const documents = [];
  let changes = 0;
  const wantChange = () => changed && changes < Math.round(total / 10) && ++changes > 0;
  for (let i = 0; i < share.sipCredentials; i++)
    documents.push(doc('SipCredential', `phones-${i}`, '  password: { fromEnv: BENCH_SIP_PASSWORD }'));
  for (let i = 0; i < share.sipAcls; i++)
    documents.push(doc('SipIpAcl', `office-${i}`, `  entries:\n    - ip: ${octets(i)}\n      cidr_prefix: 32`));
  for (let i = 0; i < share.bindings; i++) {
    documents.push(
      doc(
        'ApplicationSipAuth',
        `app-${i}`,
        `  app_id: "${apps[i]}"\n  sip_auth_type: credential\n  credential_uuid: { ref: phones-${i} }`,
      ),
    );
  }
  for (let i = 0; i < share.brands; i++) documents.push(doc('Brand', `brand-${i}`, `  profile_uuid: ${profiles[i]}`));
  for (let i = 0; i < share.campaigns; i++)
    documents.push(doc('Campaign', `campaign-${i}`, campaignSpec(`brand-${i % share.brands}`)));
  for (let i = 0; i < share.trunkAcls; i++) {
    const extra = wantChange() ? `, ${octets(i + 30_000)}` : '';
    documents.push(doc('TrunkIpAcl', `acl-${i}`, `  ip_addresses: [${octets(i + 10_000)}${extra}]`));
  }
  for (let i = 0; i < share.trunkCredentials; i++) {
    documents.push(
      doc('TrunkCredential', `login-${i}`, `  username: login${i}x\n  password: { fromEnv: BENCH_TRUNK_PASSWORD }`),
    );
  }
  for (let i = 0; i < share.uris; i++) {
    const port = wantChange() ? 5080 : 5060;
    documents.push(doc('OriginationUri', `uri-${i}`, `  uri: sip${i}.pbx.example.com:${port}`));
  }
  const inbound = [];
  for (let i = 0; i < share.trunks; i++) {
    const secure = wantChange() ? '\n  secure: true' : '';
    if (i % 2 === 0 || share.uris === 0) {
      const acl = `acl-${(i >> 1) % share.trunkAcls}`;
      const login = `login-${(i >> 1) % share.trunkCredentials}`;
      documents.push(
        doc(
          'Trunk',
          `out-${i}`,
          `  trunk_direction: outbound\n  ipacl_uuid: { ref: ${acl} }\n  credential_uuid: { ref: ${login} }${secure}`,
        ),
      );
    } else {
      documents.push(
        doc(
          'Trunk',
          `in-${i}`,
          `  trunk_direction: inbound\n  primary_uri_uuid: { ref: uri-${(i >> 1) % share.uris} }${secure}`,
        ),
      );
      inbound.push(`in-${i}`);
    }
  }
  for (let i = 0; i < share.numbers; i++) {
    const trunk = inbound.length > 0 ? `\n  app_id: { ref: ${inbound[i % inbound.length]} }` : '';
    const campaign = i % 2 === 0 ? `\n  campaign_id: { ref: campaign-${(i >> 1) % share.campaigns} }` : '';
    documents.push(doc('PhoneNumber', `number-${i}`, `  number: "+${benchNumber(i)}"${trunk}${campaign}`));
  }
  return { documents, changes };
}

export async function writeManifests(folder, documents) {
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  for (let start = 0, file = 0; start < documents.length; start += 100, file++) {
    await writeFile(
      join(folder, `part-${String(file).padStart(4, '0')}.yaml`),
      documents.slice(start, start + 100).join('---\n'),
    );
  }
}

/** What the account needs before the manifests apply: the applications, one profile per brand, and the numbers. */
export async function prepareAccount(api, admin, total) {
  const share = shares(total);
  await inBatches(share.numbers, (i) =>
    admin.admin('POST', `accounts/${api.authId}/numbers/`, { number: benchNumber(i) }),
  );
  const apps = await inBatches(share.bindings, async (i) => {
    const { app_id } = await api.request('POST', '/Application/', {
      app_name: `bench-app-${i}`,
      answer_url: `https://example.com/answer/${i}`,
    });
    return app_id;
  });
  const profiles = await inBatches(share.brands, async (i) => {
    const { profile_uuid } = await api.request('POST', '/Profile/', {
      profile_alias: `bench-${i}`,
      customer_type: 'DIRECT',
      entity_type: 'PRIVATE',
      company_name: `Bench Company ${i} Inc.`,
      vertical: 'RETAIL',
      ein: `81-${String(1_000_000 + i).padStart(7, '0')}`,
      ein_issuing_country: 'US',
      website: `https://bench${i}.example.com`,
      address: { street: '1 Bench Way', city: 'Austin', state: 'TX', postal_code: '73301', country: 'US' },
      authorized_contact: {
        first_name: 'Alex',
        last_name: 'Doe',
        email: 'alex.doe@example.com',
        phone: '+12025550199',
        title: 'Owner',
        seniority: 'CEO',
      },
    });
    return profile_uuid;
  });
  return { profiles, apps };
}
