// Unknown is declared, not defaulted: a field the schema defaults that a read leaves out is unread (compared
// with what telform applied), never the default. Every kind's defaulted fields, read without them.
import { describe, expect, it } from 'vitest';
import { normaliseBrand } from '../../src/resources/brand.js';
import { catalog } from '../../src/resources/index.js';
import { normaliseOriginationUri } from '../../src/resources/origination-uri.js';
import { normaliseSipIpAcl } from '../../src/resources/sip-ip-acl.js';

describe('fields a read leaves out are unknown, never the schema default', () => {
  it('SipIpAcl: entries left out, or an entry without cidr_prefix, leave the entries unknown (not [] nor /32)', () => {
    expect(normaliseSipIpAcl({ ip_acl_uuid: 'a-1', name: 'office' })).toEqual({
      id: 'a-1',
      spec: { name: 'office' },
      unread: ['entries'],
    });
    expect(
      normaliseSipIpAcl({ ip_acl_uuid: 'a-1', name: 'office', entries: [{ entry_id: 'e-1', ip: '192.0.2.0' }] }),
    ).toEqual({ id: 'a-1', spec: { name: 'office' }, unread: ['entries'] });
    expect(
      normaliseSipIpAcl({
        ip_acl_uuid: 'a-1',
        name: 'office',
        entries: [{ entry_id: 'e-1', ip: '192.0.2.0', cidr_prefix: 24, description: '' }],
      }),
    ).toEqual({ id: 'a-1', spec: { name: 'office', entries: [{ ip: '192.0.2.0', cidr_prefix: 24 }] } });
  });

  it('OriginationUri: authentication_needed left out is unknown (not false), and a username shows when given', () => {
    expect(normaliseOriginationUri({ uri_uuid: 'u-1', name: 'pbx', uri: 'sip:pbx.example.com' })).toEqual({
      id: 'u-1',
      spec: { name: 'pbx', uri: 'sip:pbx.example.com' },
      unread: ['authentication_needed', 'username'],
    });
    expect(
      normaliseOriginationUri({
        uri_uuid: 'u-1',
        name: 'pbx',
        uri: 'sip:pbx.example.com',
        authentication_needed: null,
        username: 'pbx01',
      }),
    ).toEqual({
      id: 'u-1',
      spec: { name: 'pbx', uri: 'sip:pbx.example.com', username: 'pbx01' },
      unread: ['authentication_needed'],
    });
    expect(
      normaliseOriginationUri({
        uri_uuid: 'u-1',
        uri: 'sip:pbx.example.com',
        authentication_needed: false,
        username: null,
      }),
    ).toEqual({ id: 'u-1', spec: { uri: 'sip:pbx.example.com', authentication_needed: false } });
  });

  it('Brand: brand_type left out is unknown (not STANDARD)', () => {
    expect(normaliseBrand({ brand_id: 'B1', brand_alias: 'acme', profile_uuid: 'p-1' }, []).unread).toEqual([
      'brand_type',
    ]);
  });

  it('every field a schema defaults and a read returns is declared as one that may go unread, or is write-only', () => {
    for (const kind of catalog.kinds) {
      const shape = (kind.spec as { shape?: Record<string, { def?: { type?: string } }> }).shape ?? {};
      const defaulted = Object.entries(shape)
        .filter(([, field]) => field.def?.type === 'default')
        .map(([name]) => name);
      const { mayBeUnread = [], unreadable } = kind.live.fields;
      for (const field of defaulted)
        expect(
          [...mayBeUnread, ...unreadable].includes(field),
          `${kind.name}.${field} has a schema default but is neither unreadable nor declared as possibly unread`,
        ).toBe(true);
    }
  });
});
