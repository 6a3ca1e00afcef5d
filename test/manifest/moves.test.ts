import { describe, expect, it } from 'vitest';
import { lines, loadText } from './helpers.js';

/** `metadata.moved_from`: what can be judged without the state, each at its place. */
function acl(name: string, movedFrom?: string): string {
  return `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: ${name}\n${movedFrom ?? ''}spec:\n  ip_addresses: [203.0.113.10]\n`;
}

describe('metadata.moved_from', () => {
  it('is carried to the resource, as one address or a list', async () => {
    const result = await loadText({
      'a.yaml': [
        acl('main-office', '  moved_from: TrunkIpAcl/office\n'),
        acl('lab', '  moved_from: [TrunkIpAcl/lab-1, TrunkIpAcl/lab-2]\n'),
      ].join('---\n'),
    });
    expect(lines(result)).toEqual([]);
    expect(result.model.resources.map((resource) => [resource.address, resource.movedFrom])).toEqual([
      ['TrunkIpAcl/main-office', ['TrunkIpAcl/office']],
      ['TrunkIpAcl/lab', ['TrunkIpAcl/lab-1', 'TrunkIpAcl/lab-2']],
    ]);
  });

  it('refuses a move across kinds, to itself, from a declared address (chains and cycles), twice, or not an address', async () => {
    const result = await loadText({
      'a.yaml': [
        acl('one', '  moved_from: Trunk/one-old\n'),
        acl('two', '  moved_from: TrunkIpAcl/two\n'),
        acl('three', '  moved_from: TrunkIpAcl/four\n'),
        acl('four', '  moved_from: TrunkIpAcl/three\n'),
        acl('five', '  moved_from: [TrunkIpAcl/gone, TrunkIpAcl/gone]\n'),
        acl('six', '  moved_from: [TrunkIpAcl/gone]\n'),
        acl('seven', '  moved_from: office\n'),
      ].join('---\n'),
    });
    expect(lines(result, 'error')).toEqual([
      'a.yaml:5:15  TrunkIpAcl/one  metadata.moved_from: Trunk/one-old is a Trunk; a TrunkIpAcl cannot take its place (a move keeps the kind; delete one and create the other instead)',
      "a.yaml:13:15  TrunkIpAcl/two  metadata.moved_from: TrunkIpAcl/two is this resource's own address; a move names the address it had before",
      'a.yaml:21:15  TrunkIpAcl/three  metadata.moved_from: TrunkIpAcl/four is still declared at a.yaml:28:9; a resource can only move from an address no resource has now (for a chain of renames, list every old address on the last one)',
      'a.yaml:29:15  TrunkIpAcl/four  metadata.moved_from: TrunkIpAcl/three is still declared at a.yaml:20:9; a resource can only move from an address no resource has now (for a chain of renames, list every old address on the last one)',
      'a.yaml:37:33  TrunkIpAcl/five  metadata.moved_from: TrunkIpAcl/gone is listed twice',
      'a.yaml:45:16  TrunkIpAcl/six  metadata.moved_from: TrunkIpAcl/gone already moves to TrunkIpAcl/five (a.yaml:37:16); one old address can move to one resource only',
      expect.stringMatching(
        /^a\.yaml:53:15 +TrunkIpAcl\/seven +metadata\.moved_from: must be an address like Trunk\/old-name/,
      ),
    ]);
  });
});
