import { describe, expect, it } from 'vitest';
import { excludeFromPlan } from '../../src/engine/exclude.js';
import { change, plan } from '../support/plan.js';
import { renderText } from '../../src/render/text.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { aclKind, testKind, trunkKind } from './builders.js';

/** `--exclude`: the excluded resources and everything that depends on them leave the plan, and it says so. */
const kinds = new Map([aclKind, trunkKind].map((kind) => [kind.kind, kind]));
const whole = plan(
  [
    change({
      address: 'TrunkIpAcl/office',
      action: 'update',
      id: 'acl-1',
      before: {},
      after: { name: 'office' },
    } as never),
    change({
      address: 'Trunk/pbx',
      action: 'noop',
      id: 'tr-1',
      before: {},
      after: { name: 'pbx', ipacl_uuid: { ref: 'office' } },
    } as never),
    change({ address: 'TrunkIpAcl/lab', action: 'create', after: { name: 'lab' } } as never),
    change({
      address: 'Trunk/lab',
      action: 'create',
      after: { name: 'lab', ipacl_uuid: { ref: 'lab' } },
      depends_on: ['TrunkIpAcl/lab'],
    } as never),
    change({ address: 'Trunk/old', action: 'delete', id: 'tr-9' } as never),
    change({ address: 'TrunkIpAcl/old', action: 'delete', id: 'acl-9', depends_on: ['Trunk/old'] } as never),
  ],
  {
    warnings: ['TrunkIpAcl/lab is a warning about lab', 'a warning about no resource'],
    basis: {
      ledger_lineage: 'l',
      ledger_serial: 3,
      objects: {
        'TrunkIpAcl/office': 'a',
        'Trunk/pbx': 'b',
        'TrunkIpAcl/lab': 'absent:lab',
        'Trunk/old': 'c',
        'TrunkIpAcl/old': 'd',
      },
    },
  },
);

describe('excludeFromPlan', () => {
  it('leaves out the excluded resource and what refers to it or waits for it, with their basis', () => {
    const limited = excludeFromPlan(whole, ['TrunkIpAcl/lab', 'Trunk/old'], kinds);
    expect(limited.changes.map((item) => item.address)).toEqual(['TrunkIpAcl/office', 'Trunk/pbx']);
    expect(limited.excluded).toEqual(['Trunk/old', 'TrunkIpAcl/lab']);
    expect(Object.keys(limited.basis.objects)).toEqual(['TrunkIpAcl/office', 'Trunk/pbx']);
    expect(limited.summary).toMatchObject({ create: 0, update: 1, delete: 0, noop: 1 });
    expect(limited.warnings).toEqual([
      '--exclude: this plan leaves out Trunk/old, TrunkIpAcl/lab, what depends on them (Trunk/lab) and what they need (TrunkIpAcl/old); changes to them are neither shown nor applied',
      'a warning about no resource',
    ]);
  });

  it('leaves a resource in when only what it depends on stays, and an excluded noop takes its dependents along', () => {
    const limited = excludeFromPlan(whole, ['TrunkIpAcl/office'], kinds);
    expect(limited.changes.map((item) => item.address)).toEqual([
      'TrunkIpAcl/lab',
      'Trunk/lab',
      'Trunk/old',
      'TrunkIpAcl/old',
    ]);
    expect(limited.warnings[0]).toBe(
      '--exclude: this plan leaves out TrunkIpAcl/office and what depends on it (Trunk/pbx); changes to them are neither shown nor applied',
    );
    expect(excludeFromPlan(whole, ['Trunk/lab'], kinds).changes.map((item) => item.address)).toEqual([
      'TrunkIpAcl/office',
      'Trunk/pbx',
      'TrunkIpAcl/lab',
      'Trunk/old',
      'TrunkIpAcl/old',
    ]);
  });

  it('leaves a plan without excludes as it is, and refuses an address that names nothing, with a suggestion', () => {
    expect(excludeFromPlan(whole, [], kinds)).toBe(whole);
    expect(() => excludeFromPlan(whole, ['Trunk/pxb'], kinds)).toThrow(
      '--exclude Trunk/pxb: no such resource in the manifests or the state; did you mean Trunk/pbx?',
    );
  });

  it('keeps the numbers of a kept trunk in a teardown: a delete refers to what the state recorded (issue 33 item 12)', () => {
    const numberKind = testKind('PhoneNumber', { references: [{ field: 'app_id', target: 'Trunk' }] });
    const withNumbers = new Map([aclKind, trunkKind, numberKind].map((kind) => [kind.kind, kind]));
    const teardown = plan([
      change({ address: 'PhoneNumber/sales', action: 'delete', id: '14155550101' } as never),
      change({ address: 'Trunk/pbx', action: 'delete', id: 'tr-1', depends_on: ['PhoneNumber/sales'] } as never),
      change({ address: 'TrunkIpAcl/office', action: 'delete', id: 'acl-1', depends_on: ['Trunk/pbx'] } as never),
      change({ address: 'TrunkIpAcl/lab', action: 'delete', id: 'acl-2' } as never),
    ]);
    const recorded = {
      'PhoneNumber/sales': { applied_spec: { number: '14155550101', app_id: { ref: 'pbx' } } },
      'Trunk/pbx': { applied_spec: { name: 'pbx', ipacl_uuid: { ref: 'office' } } },
      'TrunkIpAcl/office': { applied_spec: { name: 'office' } },
    };
    const limited = excludeFromPlan(teardown, ['Trunk/pbx'], withNumbers, recorded);
    expect(limited.changes.map((item) => item.address)).toEqual(['TrunkIpAcl/lab']);
    expect(limited.warnings[0]).toBe(
      '--exclude: this plan leaves out Trunk/pbx, what depends on it (PhoneNumber/sales) and what it needs (TrunkIpAcl/office); changes to them are neither shown nor applied',
    );
  });

  it('does not say the account matches when only excluded resources had changes (issue 33 item 25)', () => {
    const limited = excludeFromPlan(whole, ['TrunkIpAcl/office', 'TrunkIpAcl/lab', 'Trunk/old'], kinds);
    expect(limited.changes).toEqual([]);
    const line =
      'No changes outside what --exclude leaves out (Trunk/old, TrunkIpAcl/lab, TrunkIpAcl/office); those may still differ from the manifests.';
    expect(renderText(limited, { color: false })).toContain(line);
    expect(renderText(limited, { color: false })).not.toContain('The account matches');
    expect(renderMarkdown(limited)).toContain(line);
  });
});
