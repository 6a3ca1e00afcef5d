import { describe, expect, it } from 'vitest';
import { redactUrl, urlPassword } from '../../src/util/database-url.js';

describe('state URLs in messages', () => {
  it('mask the password of the user part and of the password and sslpassword parameters', () => {
    expect(redactUrl('postgres://u:pw@db:5432/telform')).toBe('postgres://u:***@db:5432/telform');
    expect(redactUrl('postgres://u@db/telform?sslmode=require&password=pw&sslpassword=key')).toBe(
      'postgres://u@db/telform?sslmode=require&password=***&sslpassword=***',
    );
    expect(redactUrl('postgresql://u@db/telform?application_name=a')).toBe(
      'postgresql://u@db/telform?application_name=a',
    );
    // Not a URL the parser takes: masked by pattern all the same.
    expect(redactUrl('postgres://u:p w@[bad/x?password=pw')).toBe('postgres://u:***@[bad/x?password=***');
  });

  it('take the password the driver uses: the query parameter over the user part', () => {
    expect(urlPassword('postgres://u:a@db/x?password=b')).toBe('b');
    expect(urlPassword('postgres://u:a%40b@db/x')).toBe('a@b');
    expect(urlPassword('postgres://u@db/x')).toBeUndefined();
  });
});
