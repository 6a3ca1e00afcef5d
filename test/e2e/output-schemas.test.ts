import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driftReportSchema, renderDriftJsonSchema } from '../../src/render/drift-schema.js';
import { renderValidateJsonSchema, validateReportSchema } from '../../src/manifest/validate-schema.js';
import { callApi, emulatorForCli, repository, runCli, type EmulatorForCli } from './cli.js';

/**
 * `validate --format json` and `drift --format json` are described by schemas/validate.schema.json
 * and schemas/drift.schema.json: the committed files are what the code generates, and the reports
 * the built CLI prints match them.
 */
let harness: EmulatorForCli;
let folder: string;
const cli = (args: string[]) => runCli(args, { cwd: folder, env: harness.env });

const acl = (address: string) =>
  `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: [${address}]\n`;

beforeAll(async () => {
  harness = await emulatorForCli();
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-schemas-'));
});
afterAll(async () => {
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('committed schemas', () => {
  it.each([
    ['validate.schema.json', renderValidateJsonSchema],
    ['drift.schema.json', renderDriftJsonSchema],
  ])('%s is what the code generates (run `npm run schemas` after changing the report)', async (name, render) => {
    expect(await readFile(path.join(repository, 'schemas', name), 'utf8')).toBe(render());
  });
});

describe('reports of the built CLI', () => {
  it('validate --format json matches the validate schema, valid or not', async () => {
    // A wrong type is an error; so is a broken value rule of an object no state records (every object is new).
    await writeFile(path.join(folder, 'acl.yaml'), acl('{ ip: 1 }'));
    const invalid = await cli(['validate', '-f', 'acl.yaml', '--format', 'json']);
    expect(invalid.code).toBe(1);
    const report = validateReportSchema.parse(JSON.parse(invalid.stdout));
    expect(report.problems.map((problem) => [problem.severity, problem.file, problem.line, problem.address])).toEqual([
      ['error', 'acl.yaml', 6, 'TrunkIpAcl/office'],
    ]);
    await writeFile(path.join(folder, 'acl.yaml'), acl('999.0.0.1'));
    const held = await cli(['validate', '-f', 'acl.yaml', '--format', 'json']);
    expect(held.code).toBe(1);
    const heldReport = validateReportSchema.parse(JSON.parse(held.stdout));
    expect(
      heldReport.problems.map((problem) => [problem.severity, problem.code, problem.line, problem.address]),
    ).toEqual([['error', 'rule', 6, 'TrunkIpAcl/office']]);
    await writeFile(path.join(folder, 'acl.yaml'), acl('203.0.113.10'));
    const valid = await cli(['validate', '-f', 'acl.yaml', '--format', 'json']);
    expect(validateReportSchema.parse(JSON.parse(valid.stdout))).toMatchObject({ valid: true, problems: [] });
  });

  it('drift --format json matches the drift schema in each status', async () => {
    // Without a state, a resource never created waits to be applied.
    const fresh = await cli(['drift', '-f', 'acl.yaml', '--format', 'json']);
    expect(fresh.code).toBe(3);
    expect(driftReportSchema.parse(JSON.parse(fresh.stdout))).toMatchObject({
      status: 'pending',
      pending: ['TrunkIpAcl/office'],
    });
    expect((await cli(['apply', '-f', 'acl.yaml', '--auto-approve'])).code).toBe(0);
    const inSync = await cli(['drift', '-f', 'acl.yaml', '--format', 'json']);
    expect(inSync.code).toBe(0);
    expect(driftReportSchema.parse(JSON.parse(inSync.stdout))).toMatchObject({
      status: 'in_sync',
      drifted: [],
      pending: [],
    });
    await writeFile(path.join(folder, 'acl.yaml'), acl('203.0.113.11'));
    const pending = await cli(['drift', '-f', 'acl.yaml', '--format', 'json']);
    expect(pending.code).toBe(3);
    expect(driftReportSchema.parse(JSON.parse(pending.stdout))).toMatchObject({
      status: 'pending',
      pending: ['TrunkIpAcl/office'],
    });
    // The account changed by hand: drifted.
    await writeFile(path.join(folder, 'acl.yaml'), acl('203.0.113.10'));
    const listed = await callApi(harness.emulator, 'GET', '/Zentrunk/IPAccessControlList/');
    const office = (listed.body.objects as Array<{ ipacl_uuid: string; name: string }>).find(
      (item) => item.name === 'office',
    );
    const edited = await callApi(
      harness.emulator,
      'POST',
      `/Zentrunk/IPAccessControlList/${office?.ipacl_uuid ?? ''}/`,
      { ip_addresses: ['198.51.100.99'] },
    );
    expect(edited.status).toBeLessThan(300);
    const drifted = await cli(['drift', '-f', 'acl.yaml', '--format', 'json']);
    expect(drifted.code).toBe(2);
    expect(driftReportSchema.parse(JSON.parse(drifted.stdout))).toMatchObject({
      status: 'drifted',
      drifted: ['TrunkIpAcl/office'],
    });
  });

  it('the schemas can fail: a report missing a field does not parse', () => {
    expect(
      driftReportSchema.safeParse({ format_version: 1, status: 'in_sync', drifted: [], pending: [] }).success,
    ).toBe(false);
    expect(validateReportSchema.safeParse({ format_version: 1, valid: 'yes' }).success).toBe(false);
  });
});
