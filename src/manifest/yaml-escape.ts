// Characters a written manifest must not hold raw, shared by `drift --write` and `import`: text
// from the account may carry bidi controls (a reviewer's diff shows the value in another order than
// the API reads it), line or paragraph separators and C1 controls (editors and terminals break the
// line there). A value holding one is written double-quoted, the character as a `\uXXXX` escape.

/** C0 controls but TAB, DEL and C1, the line and paragraph separators, bidi formatting, the BOM. */
export const needsYamlEscape =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

const rawInQuotes = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * YAML text whose every string holding such a character is double-quoted, with the characters the
 * writer left raw as escapes (inside double quotes `\uXXXX` reads back as the very character).
 */
export function escapeRawInDoubleQuoted(yaml: string): string {
  return yaml.replace(rawInQuotes, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A YAML double-quoted scalar: JSON's escapes are YAML's, and what JSON leaves raw becomes `\uXXXX`. */
export function doubleQuotedYaml(value: string): string {
  return escapeRawInDoubleQuoted(JSON.stringify(value));
}
