import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadManifests } from '../../src/manifest/load.js';
import { formatProblem } from '../../src/manifest/report.js';
import { subUsecases, usecases, verticals } from '../../src/resources/campaign.js';

/**
 * Property tests: generated valid manifests always validate, and mutated ones never
 * crash the validator: every problem is one line with a place, and no secret is ever echoed.
 */
let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'telform-property-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

type Document = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; protect?: boolean };
  spec: Record<string, unknown>;
};

const name = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,20}[a-z0-9])?$/);
const names = (min: number, max: number) => fc.uniqueArray(name, { minLength: min, maxLength: max });
const octet = fc.integer({ min: 0, max: 255 });
const ipv4 = fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.'));
const prefix = fc.integer({ min: 8, max: 32 });
const alphanumeric = (min: number, max: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${min},${max}}$`));
const text = (min: number) =>
  fc
    .string({ minLength: min, maxLength: min + 40 })
    .filter((value) => [...value].length >= min && value.trim() === value);
/** The secret values generated, to check no message ever contains one. */
const secretMarker = 'Zq9';
const sipPassword = alphanumeric(9, 30).map((rest) => `${secretMarker}${rest}`);
const trunkPassword = alphanumeric(2, 10).map((rest) => `${secretMarker}!${rest}`);
const secret = (literal: fc.Arbitrary<string>) =>
  fc.oneof(
    literal,
    fc.record({ fromEnv: fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,15}$/) }),
    fc.record({ fromFile: fc.constantFrom('pw.txt', 'secrets/pw') }),
  );
const protect = fc.option(fc.boolean(), { nil: undefined });

function document(kind: string, metadataName: string, spec: Record<string, unknown>, protectIt?: boolean): Document {
  return {
    apiVersion: 'telform/v1',
    kind,
    metadata: protectIt === undefined ? { name: metadataName } : { name: metadataName, protect: protectIt },
    spec,
  };
}

/** A valid account: every kind, refs pointing at generated resources of the right kind. */
const validManifests = fc
  .record({
    acls: names(1, 3),
    logins: names(1, 3),
    uris: names(1, 3),
    trunks: names(0, 4),
    // A SipCredential's username defaults to metadata.name and needs 3 characters.
    sipCredentials: fc.uniqueArray(
      name.filter((value) => value.length >= 3),
      { minLength: 1, maxLength: 3 },
    ),
    sipAcls: names(1, 3),
    apps: fc.uniqueArray(fc.bigInt({ min: 1n, max: 10n ** 17n }), { minLength: 0, maxLength: 3 }),
    brands: names(1, 3),
    campaigns: names(0, 4),
    seed: fc.integer(),
  })
  .chain((world) =>
    fc
      .tuple(
        fc.tuple(
          ...world.acls.map((acl) =>
            fc
              .record({
                addresses: fc.uniqueArray(
                  fc.oneof(
                    ipv4,
                    fc.tuple(ipv4, prefix).map(([ip, bits]) => `${ip}/${bits}`),
                  ),
                  { minLength: 1, maxLength: 5 },
                ),
                protect,
              })
              .map((value) => document('TrunkIpAcl', acl, { ip_addresses: value.addresses }, value.protect)),
          ),
        ),
        fc.tuple(
          ...world.logins.map((login, index) =>
            fc
              .record({
                username: alphanumeric(5, 15).map((user) => `${user}${index}`),
                password: secret(trunkPassword),
              })
              .map((spec) => document('TrunkCredential', login, spec)),
          ),
        ),
        fc.tuple(
          ...world.uris.map((uri) =>
            fc
              .oneof(
                fc.record({
                  uri: fc.constantFrom(
                    'sip.example.com',
                    'sips:pbx.example.com:5061;transport=tls',
                    '203.0.113.5:5060',
                    '[2001:db8::1]:5061',
                  ),
                }),
                fc.record({
                  uri: fc.constant('sip:pbx@example.com'),
                  authentication_needed: fc.constant(true),
                  username: alphanumeric(1, 10),
                  password: secret(alphanumeric(1, 10)),
                }),
              )
              .map((spec) => document('OriginationUri', uri, spec)),
          ),
        ),
        fc.tuple(
          ...world.trunks.map((trunk) =>
            fc
              .oneof(
                fc.record(
                  {
                    trunk_direction: fc.constant('outbound'),
                    trunk_status: fc.constantFrom('enabled', 'disabled'),
                    secure: fc.boolean(),
                    ipacl_uuid: fc.constantFrom(...world.acls).map((ref) => ({ ref })),
                    credential_uuid: fc.oneof(
                      fc.constantFrom(...world.logins).map((ref) => ({ ref })),
                      fc.uuid(),
                    ),
                  },
                  { requiredKeys: ['trunk_direction', 'ipacl_uuid'] },
                ),
                fc.record(
                  {
                    trunk_direction: fc.constant('inbound'),
                    primary_uri_uuid: fc.constantFrom(...world.uris).map((ref) => ({ ref })),
                    fallback_uri_uuid: fc.uuid(),
                  },
                  { requiredKeys: ['trunk_direction', 'primary_uri_uuid'] },
                ),
              )
              .map((spec) => document('Trunk', trunk, spec)),
          ),
        ),
        fc.tuple(
          ...world.sipCredentials.map((credential) =>
            fc.record({ password: secret(sipPassword) }).map((spec) => document('SipCredential', credential, spec)),
          ),
        ),
        fc.tuple(
          ...world.sipAcls.map((acl) =>
            fc
              .record({
                entries: fc.uniqueArray(
                  fc.record(
                    { ip: ipv4, cidr_prefix: prefix, description: fc.string({ maxLength: 50 }) },
                    { requiredKeys: ['ip'] },
                  ),
                  { maxLength: 5, selector: (entry) => `${entry.ip}/${entry.cidr_prefix ?? 32}` },
                ),
              })
              .map((spec) => document('SipIpAcl', acl, spec)),
          ),
        ),
        fc.tuple(
          ...world.apps.map((app, index) =>
            fc.constantFrom('ip_acl', 'credential', 'ip_acl_and_credential').map((type) =>
              document(`ApplicationSipAuth`, `app-${index}`, {
                app_id: String(app),
                sip_auth_type: type,
                ...(type === 'credential' ? {} : { ip_acl_uuid: { ref: world.sipAcls[0] } }),
                ...(type === 'ip_acl' ? {} : { credential_uuid: { ref: world.sipCredentials[0] } }),
              }),
            ),
          ),
        ),
        fc.tuple(
          ...world.brands.map((brand, index) =>
            fc.record({ secondary_vetting: fc.boolean(), method: fc.constantFrom('GET', 'POST') }).map((spec) =>
              document('Brand', brand, {
                profile_uuid: `5eed0000-0000-4000-8000-${String(index + 1).padStart(12, '0')}`,
                ...spec,
              }),
            ),
          ),
        ),
        fc.tuple(
          ...world.campaigns.map((campaign, index) =>
            fc
              .oneof(
                fc.record(
                  {
                    import: fc.constant({ campaign_id: `C${String(index).padStart(6, '0')}` }),
                    url: fc.constant('https://hooks.example.com/10dlc'),
                  },
                  { requiredKeys: ['import'] },
                ),
                fc
                  .record(
                    {
                      brand_id: fc.constantFrom(...world.brands).map((ref) => ({ ref })),
                      vertical: fc.constantFrom(...verticals),
                      usecase: fc.constantFrom(...usecases),
                      description: text(40),
                      sample1: text(20),
                      sample2: text(20),
                      sample3: text(20),
                      message_flow: text(40),
                      help_message: text(20),
                      optout_message: text(20),
                      subscriber_optin: fc.constant(true),
                      subscriber_optout: fc.constant(true),
                      subscriber_help: fc.constant(true),
                      direct_lending: fc.boolean(),
                      embedded_link: fc.boolean(),
                      embedded_phone: fc.boolean(),
                      age_gated: fc.boolean(),
                      affiliate_marketing: fc.boolean(),
                      help_keywords: fc.constantFrom('HELP', 'HELP,INFO'),
                      sub_usecases: fc.uniqueArray(fc.constantFrom(...subUsecases), { minLength: 2, maxLength: 5 }),
                    },
                    {
                      requiredKeys: [
                        'brand_id',
                        'vertical',
                        'usecase',
                        'description',
                        'sample1',
                        'sample2',
                        'message_flow',
                        'help_message',
                        'optout_message',
                        'subscriber_optin',
                        'subscriber_optout',
                        'subscriber_help',
                        'direct_lending',
                        'embedded_link',
                        'embedded_phone',
                        'age_gated',
                        'affiliate_marketing',
                        'sub_usecases',
                      ],
                    },
                  )
                  .map(({ sub_usecases: subs, ...spec }) =>
                    spec.usecase === 'MIXED' || spec.usecase === 'LOW_VOLUME' ? { ...spec, sub_usecases: subs } : spec,
                  ),
              )
              .map((spec) => document('Campaign', campaign, spec)),
          ),
        ),
      )
      .map((groups) => groups.flat() as Document[]),
  );

function toYaml(documents: readonly Document[]): string {
  return documents.map((entry) => stringify(entry)).join('---\n');
}

async function validate(text: string | Buffer, parser: 'auto' | 'exact' = 'auto') {
  const file = path.join(folder, 'manifest.yaml');
  await writeFile(file, text);
  return loadManifests(['manifest.yaml'], { cwd: folder, env: {}, parser });
}

/** What a load says, to compare the fast and exact paths: every problem and every resource. */
function outcome(result: Awaited<ReturnType<typeof validate>>): unknown {
  return {
    problems: result.problems.map(formatProblem),
    resources: result.model.resources.map((resource) => ({
      address: resource.address,
      protect: resource.protect,
      spec: JSON.stringify(resource.spec),
      document: resource.source.document,
    })),
  };
}

describe('properties of validation', () => {
  it('accepts every generated valid account', async () => {
    await fc.assert(
      fc.asyncProperty(validManifests, async (documents) => {
        const result = await validate(toYaml(documents));
        expect(result.problems.filter((problem) => problem.severity === 'error').map(formatProblem)).toEqual([]);
        expect(result.model.resources).toHaveLength(documents.length);
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 20 }) }),
    fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      text: fc.oneof(
        fc.constantFrom(
          '\t',
          ':',
          ': ',
          '- ',
          '[',
          ']',
          '{',
          '}',
          '"',
          "'",
          '&a ',
          '*a',
          '\n',
          '\n  ',
          '#',
          '---\n',
          '\u0000',
          '!!binary ',
          '<<: ',
        ),
        fc.string({ maxLength: 5 }),
      ),
    }),
    fc.record({ kind: fc.constant('swap-lines' as const), at: fc.nat(), other: fc.nat() }),
    fc.record({
      kind: fc.constant('bytes' as const),
      at: fc.nat(),
      bytes: fc.uint8Array({ minLength: 1, maxLength: 4 }),
    }),
  );

  type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

  function mutate(text: string, mutations: readonly Mutation[]): Buffer {
    let bytes = Buffer.from(text);
    for (const step of mutations) {
      const at = bytes.length === 0 ? 0 : step.at % bytes.length;
      switch (step.kind) {
        case 'delete':
          bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + step.length)]);
          break;
        case 'insert':
          bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(step.text), bytes.subarray(at)]);
          break;
        case 'bytes':
          bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(step.bytes), bytes.subarray(at)]);
          break;
        case 'swap-lines': {
          const lines = bytes.toString('latin1').split('\n');
          const a = step.at % lines.length;
          const b = step.other % lines.length;
          [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
          bytes = Buffer.from(lines.join('\n'), 'latin1');
          break;
        }
        default: {
          const never: never = step;
          throw new Error(`unknown mutation ${String(never)}`);
        }
      }
    }
    return bytes;
  }

  it('never crashes on mutated manifests, keeps every problem to one placed line without secrets, and reads them alike on both paths', async () => {
    await fc.assert(
      fc.asyncProperty(
        validManifests,
        fc.array(mutation, { minLength: 1, maxLength: 4 }),
        async (documents, mutations) => {
          const text = mutate(toYaml(documents), mutations);
          const result = await validate(text);
          // The fast path (js-yaml) must never change what validation says (see yaml-fast.ts).
          expect(outcome(result)).toEqual(outcome(await validate(text, 'exact')));
          for (const problem of result.problems) {
            const line = formatProblem(problem);
            expect(line).not.toMatch(/\n/);
            expect(line).not.toMatch(/internal error|    at /);
            // A secret is never echoed: not by a password field's messages, nor by a YAML syntax error
            // on its line. (A mutation may move a secret into another field, whose value is shown.)
            if (problem.code.startsWith('yaml') || problem.field?.includes('password'))
              expect(line).not.toContain(secretMarker);
            if (problem.code !== 'no_manifests') expect(problem.source?.line).toBeGreaterThanOrEqual(1);
          }
        },
      ),
      { numRuns: 80 },
    );
  }, 120_000);
});
