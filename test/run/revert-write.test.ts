import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifests } from '../../src/run/apply-run.js';
import type { GlobalOptions } from '../../src/run/context.js';
import { approvalsFrom } from '../../src/run/reconcile.js';
import { revertApply } from '../../src/run/revert-run.js';
import { startHarness, type Harness } from './harness.js';

// `revert N --write` never leaves manifests that do not validate (a value from before #N that refers
// to what the manifests no longer declare: nothing is written, the file keeps its bytes), and says
// when #N changed a secret, naming where its value comes from, never the value.

let harness: Harness;
let globals: GlobalOptions;

const uri = (name: string, host: string, password = false) =>
  `apiVersion: telform/v1\nkind: OriginationUri\nmetadata:\n  name: ${name}\nspec:\n  uri: ${host}:5060\n${password ? '  authentication_needed: true\n  username: pbxinbound\n  password: { fromEnv: PBX_B_PASSWORD }\n' : ''}`;
const trunk = (primary: string) =>
  `apiVersion: telform/v1\nkind: Trunk\nmetadata:\n  name: office\nspec:\n  name: office\n  trunk_direction: inbound\n  primary_uri_uuid: { ref: ${primary} }\n`;
const a = uri('pbx-a', 'sip-a.pbx.example.com');
const b = uri('pbx-b', 'sip-b.pbx.example.com', true);

beforeAll(async () => {
  harness = await startHarness();
  globals = { endpoint: harness.emulator.url, state: path.join(harness.folder, 'write.state.json') };
});
afterAll(async () => {
  await harness.close();
});

async function apply(documents: string[], password: string) {
  await harness.write('pbx.yaml', documents.join('---\n'));
  const applied = await applyManifests(
    {
      source: { paths: ['pbx.yaml'], values: { value: [] } },
      approvals: approvalsFrom({ forceDeletes: true }),
      options: {},
      parallelism: 4,
      waitMs: 0,
    },
    globals,
    harness.context({ ...harness.envOf(0), PBX_B_PASSWORD: password }),
    { planned: () => ({}) },
  );
  expect(applied).toMatchObject({ mode: 'apply', outcome: { status: 'applied' } });
}

describe('revert --write', () => {
  it('refuses to write what would not validate, keeping every byte, and names a secret the apply changed', async () => {
    await apply([a, b, trunk('pbx-a')], 'First-secret-0001#'); // #1
    await apply([a, b, trunk('pbx-b')], 'Second-secret-0002#'); // #2: the trunk moves to pbx-b, whose password changes
    await apply([b, trunk('pbx-b')], 'Second-secret-0002#'); // #3: pbx-a goes
    const context = harness.context({ ...harness.envOf(0), PBX_B_PASSWORD: 'Second-secret-0002#' });
    const text = await readFile(path.join(harness.folder, 'pbx.yaml'), 'utf8');

    const refused = revertApply({ seq: 2, mode: 'write', files: ['pbx.yaml'] }, globals, context, {
      planned: () => ({}),
    });
    await expect(refused).rejects.toMatchObject({
      code: 'revert_write_invalid',
      message:
        'the values from before apply #2 would leave the manifests invalid, so nothing was written: pbx.yaml:18:28  Trunk/office  spec.primary_uri_uuid.ref: no OriginationUri named "pbx-a" in these manifests; did you mean "pbx-b"?; write the revert by hand, or apply it with telform revert 2',
    });
    expect(await readFile(path.join(harness.folder, 'pbx.yaml'), 'utf8')).toBe(text);

    // With pbx-a declared again, the trunk's value goes back, and the password is said, not written.
    await harness.write('pbx.yaml', [a, b, trunk('pbx-b')].join('---\n'));
    const written = await revertApply({ seq: 2, mode: 'write', files: ['pbx.yaml'] }, globals, context, {
      planned: () => ({}),
    });
    expect(written).toEqual({
      mode: 'written',
      result: {
        written: ['pbx.yaml: Trunk/office primary_uri_uuid'],
        notes: [
          'OriginationUri/pbx-b: apply #2 changed its password (from env PBX_B_PASSWORD); the history keeps only a fingerprint of a secret, never its value, so set it back to its earlier value yourself',
        ],
      },
    });
    expect(await readFile(path.join(harness.folder, 'pbx.yaml'), 'utf8')).toBe([a, b, trunk('pbx-a')].join('---\n'));
  });
});
