import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { explainField, explainKind } from '../../src/resources/explain.js';
import { catalog } from '../../src/resources/index.js';
import { cleanEnv, runCli } from './cli.js';

/** `telform explain KIND[.field]` with the built CLI: offline, from the kinds' own schemas and field rules. */
const explain = (subject: string) => runCli(['explain', subject], { cwd: tmpdir(), env: cleanEnv() });

describe('telform explain', () => {
  it('explains a field: type, description, default, rules and what a change does', async () => {
    const run = await explain('Trunk.trunk_status');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'Trunk.trunk_status',
        '  type: one of: enabled, disabled',
        '  Whether the trunk carries calls.',
        '  optional, default "enabled"',
        "  rule: some reads of the API leave it out: it is then unknown, compared with the value telform last applied (or the manifest's, before the first apply), never drift or a reason to replace",
        '  change: in place: updated on the existing object',
        // A trunk with numbers attached cannot turn outbound.
        '  change: blocked while the live object is in a state the API refuses updates in (the plan says which)',
        '',
      ].join('\n'),
    );
  });

  it('says when a change replaces, costs and cannot be undone, or is blocked', async () => {
    const usecase = await explain('Campaign.usecase');
    expect(usecase.stdout).toContain(
      '  change: replace: a new Campaign is created and the old one deleted (the new one first)\n',
    );
    expect(usecase.stdout).toContain(
      '  change: irreversible: the old one cannot be brought back; apply needs --allow-irreversible\n',
    );
    expect(usecase.stdout).not.toContain('billable');
    const alias = await explain('Brand.brand_alias');
    expect(alias.stdout).toContain('  rule: defaults to metadata.name\n');
    expect(alias.stdout).toContain('  change: blocked: the API cannot change it on an existing object');
  });

  it('walks into lists of objects', async () => {
    const run = await explain('SipIpAcl.entries.ip');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^SipIpAcl\.entries\.ip\n {2}type: string\n/);
    expect(run.stdout).toContain('(as a change of entries)');
  });

  it('lists a kind with its fields', async () => {
    const run = await explain('Trunk');
    expect(run.stdout).toContain('  trunk_status       one of: enabled, disabled; default "enabled"; in place\n');
    expect(run.stdout).toContain('  delete: can be recreated\n');
  });

  it('refuses an unknown kind or field, with a suggestion', async () => {
    expect(await explain('Trunkk')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: unknown kind "Trunkk"; did you mean Trunk\? \(kinds: /) as unknown,
    });
    const field = await explain('Trunk.secur');
    expect(field.code).toBe(1);
    expect(field.stderr).toContain('error: Trunk has no field "secur"; did you mean secure?');
  });

  it('explains every field of every kind, each with exactly one change behaviour from the planner’s field rules', () => {
    for (const kind of catalog.kinds) {
      const explained = explainKind(kind);
      expect(explained.fields.map((field) => field.path)).toEqual(Object.keys(kind.spec.shape));
      for (const field of explained.fields) {
        const { updatable, replaceOn, immutable } = kind.live.fields;
        const keyField = kind.live.keyField?.field === field.path;
        const expected =
          immutable.includes(field.path) || keyField
            ? 'blocked'
            : replaceOn.includes(field.path)
              ? 'replace'
              : updatable.includes(field.path)
                ? 'in place'
                : 'not updated';
        expect(`${kind.name}.${field.path} ${field.change[0]?.split(':')[0] ?? ''}`).toBe(
          `${kind.name}.${field.path} ${expected}`,
        );
        expect(explainField(kind, field.path)).toEqual(field);
      }
    }
  });
});
