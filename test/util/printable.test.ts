import { describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../src/api/errors.js';
import { printable, printableJson } from '../../src/util/printable.js';

describe('printable', () => {
  it('escapes ESC sequences, CR/LF, tabs, DEL, C1 controls and bidi characters, and leaves other text alone', () => {
    expect(printable('pbx\u001b[2J\u001b[H')).toBe('pbx\\u001b[2J\\u001b[H');
    expect(printable('a\r\nPlan: 0 to create\tx')).toBe('a\\r\\nPlan: 0 to create\\tx');
    expect(printable('\u007f\u009b31m')).toBe('\\u007f\\u009b31m');
    expect(printable('abc\u202edcba\u2066\u2069\u200e\u061c\u2028')).toBe(
      'abc\\u202edcba\\u2066\\u2069\\u200e\\u061c\\u2028',
    );
    expect(printable('Büro-PBX 東京 ✓ "quoted" \\ back')).toBe('Büro-PBX 東京 ✓ "quoted" \\ back');
  });

  it('makes JSON text safe to print without changing the data it holds', () => {
    const value = { name: 'x\u202ey\u009b\u007f\u2028', plain: 'ü\n\u001b' };
    const text = printableJson(JSON.stringify(value));
    expect(text).toBe('{"name":"x\\u202ey\\u009b\\u007f\\u2028","plain":"ü\\n\\u001b"}');
    expect(JSON.parse(text)).toEqual(value);
    // Pretty-printed JSON keeps its own newlines and indents.
    expect(printableJson(JSON.stringify({ a: '\u202e' }, null, 2))).toBe('{\n  "a": "\\u202e"\n}');
  });
});

describe('an API error message', () => {
  it('quotes the API message and the path escaped, and keeps the raw message in its details', () => {
    const error = new ApiRequestError(400, 'bad name \u001b[2J\r\nok', {
      method: 'POST',
      path: 'Zentrunk/Trunk/\u202eid/',
    });
    expect(error.message).toBe('the API answered 400 to POST Zentrunk/Trunk/\\u202eid/: bad name \\u001b[2J\\r\\nok');
    expect(error.details).toMatchObject({ api_message: 'bad name \u001b[2J\r\nok' });
  });
});
