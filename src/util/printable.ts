// Text from the live account (names, ids, API messages, registry reasons) is untrusted: whoever can
// write to the account could put ESC sequences (clear a reviewer's screen, move the cursor), CR/LF
// (forge a "Plan: 0 to create" line) or bidi controls (show text in another order than it is) in
// it. Every renderer passes such values through here before they meet a terminal, a log or a
// pull-request comment.

/**
 * C0 controls (CR, LF and TAB too: a value is printed on one line), DEL, C1 controls (U+009B is a
 * CSI on some terminals), the line and paragraph separators, and the bidi formatting characters.
 */
const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const named: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(char: string): string {
  return named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** The value with every unsafe character written as an escape (`\n`, `\u001b`, `\u202e`); safe text is unchanged. */
export function printable(value: string): string {
  return value.replace(unsafe, escapeOne);
}

/**
 * JSON text (the output of `JSON.stringify`) with the characters JSON leaves raw (DEL, C1, bidi,
 * U+2028/9) written as `\uXXXX` escapes: they occur only inside strings, where the escape parses
 * back to the very same value, so the data is unchanged and the text is safe to print.
 */
export function printableJson(json: string): string {
  // C0 controls are escaped by JSON.stringify inside strings; outside them are only its own newlines and indents.
  return json.replace(leftRawByJson, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const leftRawByJson = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
