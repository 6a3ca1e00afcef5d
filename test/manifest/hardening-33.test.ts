import { describe, expect, it } from 'vitest';
import { heldNote } from '../../src/manifest/document.js';
import { doc, lines, loadText } from './helpers.js';

/** Manifest checks from issue 33 (items 13 and 27). */
describe('manifest checks a new user and an adversary found missing', () => {
  it('refuses an empty TrunkIpAcl.ip_addresses, written or as a value (item 13)', async () => {
    const written = await loadText({ 'a.yaml': doc('TrunkIpAcl', 'pbx', 'ip_addresses: []') });
    // A held value: a warning at validate (the plan refuses to create it).
    expect(lines(written)).toEqual([
      'a.yaml:6:17  TrunkIpAcl/pbx  spec.ip_addresses: warning: must hold at least one address (the API refuses an empty list)' +
        heldNote,
    ]);
    const asValue = await loadText(
      { 'a.yaml': doc('TrunkIpAcl', 'pbx', 'ip_addresses: { value: pbx_ips }') },
      {
        values: new Map([
          [
            'pbx_ips',
            { value: [], origin: { where: 'values.yaml:1:10', place: { file: 'values.yaml', line: 1, column: 10 } } },
          ],
        ]),
      },
    );
    expect(lines(asValue)).toEqual([
      `a.yaml:6:17  TrunkIpAcl/pbx  spec.ip_addresses: warning: must hold at least one address (the API refuses an empty list)${heldNote} (value pbx_ips, given at values.yaml:1:10)`,
    ]);
  });
});

describe('moved_from with an address of no known kind (item 27)', () => {
  it('says unknown kind, with the likely one', async () => {
    const result = await loadText({
      'a.yaml': doc('TrunkIpAcl', 'pbx', 'ip_addresses: [203.0.113.10]').replace(
        '  name: pbx\n',
        '  name: pbx\n  moved_from: trunk/x\n',
      ),
    });
    expect(lines(result)).toEqual([
      'a.yaml:5:15  TrunkIpAcl/pbx  metadata.moved_from: trunk/x: unknown kind "trunk"; did you mean "Trunk"?',
    ]);
  });
});
