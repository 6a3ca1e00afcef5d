import type { Pacer } from '../util/pace.js';
import { maxDepth, maxValuesPerDocument } from './yaml-document.js';

/**
 * The fastest path, for manifests written the plain way: block mappings and sequences indented with
 * spaces, keys that are words, one-line scalars (plain, or quoted without unusual escapes) and
 * one-line flow lists and mappings of scalars. That is what people and `telform import` write, and
 * reading only that takes a fraction of what a whole YAML parser costs (its code, too, must be
 * compiled before it runs fast, which for one command is most of its cost).
 *
 * It reads a file completely or not at all: on anything else (an anchor, a tag, a block scalar, a
 * multi-line or unusual scalar, a duplicate key, odd indentation, a number in any form but a plain
 * decimal integer) it returns undefined and the file is read by `js-yaml` (`yaml-fast.ts`) as
 * before. Where it answers, the values equal what `js-yaml` reads with the YAML 1.2 core schema;
 * a test compares the two over the example and test manifests.
 */
export function parseYamlSubset(text: string): unknown[] | undefined {
  return readSubset(text, false)?.values;
}

/** What the paced reader answers: each document's value, and where in the file it starts. */
interface SubsetRead {
  values: unknown[];
  starts: number[];
}

/** `parseYamlSubset` in slices: the event loop may turn between documents (`Pacer`). */
export async function parseYamlSubsetPaced(
  text: string,
  pacer: Pick<Pacer, 'due' | 'breathe'>,
): Promise<SubsetRead | undefined> {
  if (unusualCharacter.test(text)) return undefined;
  const values: unknown[] = [];
  const reader = new SubsetReader(text, false);
  try {
    for (const value of reader.documents()) {
      values.push(value);
      if (pacer.due()) await pacer.breathe();
    }
  } catch (error) {
    if (error === declined) return undefined;
    throw error;
  }
  return { values, starts: reader.starts };
}

/**
 * The offsets of one document of a file this reader read whole (`starts` from that read): only
 * that document is read again, from its start to the next one's, so placing a message or a lint
 * finding costs a document's read, not the file's. Offsets are into the whole file.
 */
export function documentOffsets(text: string, starts: readonly number[], index: number): SubsetOffsets | undefined {
  const start = starts[index];
  if (start === undefined) return undefined;
  const offsets = readSubset(text.slice(start, starts[index + 1] ?? text.length), true)?.offsets[0];
  if (!offsets) return undefined;
  return {
    pointers: offsets.pointers,
    values: offsets.values.map((offset) => offset + start),
    keys: offsets.keys.map((offset) => (offset >= 0 ? offset + start : offset)),
  };
}

/**
 * Where each value of one document was written, as character offsets into the file, in the order
 * read: the value at `pointers[i]` starts at `values[i]`, and its key (for a mapping entry) at
 * `keys[i]` (-1 for none). The same places the `yaml` package's walk (`yaml.ts`) records, so a
 * file read here needs no second parse to place a message.
 */
export interface SubsetOffsets {
  pointers: string[];
  values: number[];
  keys: number[];
}

/** `parseYamlSubset`, with the offsets of every value of each document. */
export function parseYamlSubsetWithOffsets(text: string): { values: unknown[]; offsets: SubsetOffsets[] } | undefined {
  const read = readSubset(text, true);
  return read && { values: read.values, offsets: read.offsets };
}

function readSubset(text: string, record: boolean): { values: unknown[]; offsets: SubsetOffsets[] } | undefined {
  // Tabs, carriage returns, control characters, a byte order mark and characters YAML treats
  // specially (NEL, line and paragraph separators) are left to the full parsers.
  if (unusualCharacter.test(text)) return undefined;
  try {
    const reader = new SubsetReader(text, record);
    const values = [...reader.documents()];
    return { values, offsets: reader.offsets };
  } catch (error) {
    if (error === declined) return undefined;
    throw error;
  }
}

const unusualCharacter = /[\u0000-\u0009\u000B-\u001F\u007F-\u009F\u2028\u2029\uFEFF\uFFFE\uFFFF]/;
const declined = new Error('not in the subset');

/** Plain scalars the core schema reads as a number in some form (either parser's); only plain decimal integers are read here. */
const numberLike =
  /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9_]+(?:[eE][-+]?[0-9]+)?|\.(?:inf|Inf|INF|nan|NaN|NAN)|0[bBoOxX][0-9a-fA-F_]*)$/;
const decimalInteger = /^-?(?:0|[1-9][0-9]*)$/;
/** Words the core schema reads as something other than a string; never keys here. */
const reservedWords = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', '__proto__']);

const space = 32;
const hash = 35;
const dash = 45;
const colon = 58;

function isWordStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95;
}

function isWordPart(code: number): boolean {
  return isWordStart(code) || (code >= 48 && code <= 57);
}

function decline(): never {
  throw declined;
}

class SubsetReader {
  readonly #text: string;
  /** The current significant line: where it starts, its first non-space character, its indentation, its end without trailing spaces. */
  #lineStart = 0;
  #start = 0;
  #indent = 0;
  #end = 0;
  #next = 0;
  #eof = false;
  /** The current line is `---`. */
  #marker = false;
  #values = 0;
  readonly #record: boolean;
  /** Per document, when recording. */
  readonly offsets: SubsetOffsets[] = [];
  /** Where each document's first line starts. */
  readonly starts: number[] = [];
  #current: SubsetOffsets = { pointers: [], values: [], keys: [] };

  constructor(text: string, record: boolean) {
    this.#text = text;
    this.#record = record;
    this.#advance(0);
  }

  /** The documents one by one, each read when asked for (so a caller may pause between them). */
  *documents(): Generator<unknown, void, undefined> {
    if (!this.#eof && !this.#marker) yield this.#document();
    while (!this.#eof) {
      // At a `---` line; a document marker followed by content on its own line is left to the parsers.
      if (this.#end !== this.#lineStart + 3 && this.#text.charCodeAt(this.#lineStart + 4) !== hash) decline();
      this.#advance(this.#next);
      if (!this.#eof && !this.#marker) yield this.#document();
    }
  }

  #document(): unknown {
    if (this.#indent !== 0) decline();
    this.#values = 0;
    this.starts.push(this.#lineStart);
    this.#current = { pointers: [], values: [], keys: [] };
    if (this.#record) this.offsets.push(this.#current);
    const value = this.#block(0, 0, '', -1);
    if (!this.#eof && !this.#marker) decline();
    return value;
  }

  /** Records where the value at `pointer` starts (and its key, or -1). */
  #place(pointer: string, value: number, key: number): void {
    if (!this.#record) return;
    this.#current.pointers.push(pointer);
    this.#current.values.push(value);
    this.#current.keys.push(key);
  }

  /** The pointer of a child, when recording (keys here are words: nothing to escape). */
  #child(pointer: string, segment: string | number): string {
    return this.#record ? `${pointer}/${segment}` : '';
  }

  /** Moves to the next line with content at or after `from`, skipping blank and comment lines. */
  #advance(from: number): void {
    const text = this.#text;
    const length = text.length;
    let position = from;
    while (position < length) {
      let end = text.indexOf('\n', position);
      if (end === -1) end = length;
      let start = position;
      while (start < end && text.charCodeAt(start) === space) start++;
      if (start === end || text.charCodeAt(start) === hash) {
        position = end + 1;
        continue;
      }
      let last = end;
      while (last > start && text.charCodeAt(last - 1) === space) last--;
      this.#lineStart = position;
      this.#start = start;
      this.#indent = start - position;
      this.#end = last;
      this.#next = end + 1;
      this.#marker = false;
      if (start === position && (text.startsWith('---', start) || text.startsWith('...', start))) {
        const after = text.charCodeAt(start + 3);
        if (start + 3 === last || after === space) {
          if (text.charCodeAt(start) === 46) decline(); // `...`
          this.#marker = true;
        }
      }
      return;
    }
    this.#eof = true;
    this.#marker = false;
    this.#indent = -1;
  }

  /** Whether a block that started at `indent` goes on with the current line. */
  #continues(indent: number): boolean {
    if (this.#eof || this.#marker || this.#indent < indent) return false;
    if (this.#indent > indent) decline();
    return true;
  }

  #isEntry(at: number): boolean {
    return this.#text.charCodeAt(at) === dash && (at + 1 === this.#end || this.#text.charCodeAt(at + 1) === space);
  }

  #count(depth: number): void {
    if (++this.#values > maxValuesPerDocument || depth > maxDepth) decline();
  }

  /** The block collection whose first line is the current one, at `indent`. */
  #block(indent: number, depth: number, pointer: string, key: number): unknown {
    this.#place(pointer, this.#start, key);
    return this.#isEntry(this.#start) ? this.#sequence(indent, depth, pointer) : this.#mapping(indent, depth, pointer);
  }

  /** A nested value after `key:` or `-` with nothing else on its line. */
  #nested(indent: number, depth: number, compactList: boolean, pointer: string, key: number, empty: number): unknown {
    if (!this.#eof && !this.#marker) {
      if (this.#indent > indent) return this.#block(this.#indent, depth, pointer, key);
      // A list may sit at its key's indentation.
      if (compactList && this.#indent === indent && this.#isEntry(this.#start))
        return this.#block(indent, depth, pointer, key);
    }
    // Nothing written: a null placed where the exact walk places it, after the spaces that follow
    // the `:` or `-` (trailing ones included).
    this.#place(pointer, empty, key);
    return null;
  }

  #mapping(indent: number, depth: number, pointer: string): Record<string, unknown> {
    this.#count(depth);
    const text = this.#text;
    const out: Record<string, unknown> = {};
    do {
      if (this.#isEntry(this.#start)) decline();
      const keyEnd = this.#wordEnd(this.#start);
      const key = text.slice(this.#start, keyEnd);
      if (
        keyEnd === this.#start ||
        text.charCodeAt(keyEnd) !== colon ||
        reservedWords.has(key) ||
        Object.hasOwn(out, key)
      )
        decline();
      const keyStart = this.#start;
      const child = this.#child(pointer, key);
      let at = keyEnd + 1;
      if (at < this.#end && text.charCodeAt(at) !== space) decline();
      while (at < this.#end && text.charCodeAt(at) === space) at++;
      if (at === this.#end || text.charCodeAt(at) === hash) {
        const empty = this.#record ? this.#afterSpaces(keyEnd + 1) : 0;
        this.#advance(this.#next);
        out[key] = this.#nested(indent, depth + 1, true, child, keyStart, empty);
        if (out[key] === null) this.#count(depth + 1);
      } else {
        out[key] = this.#inline(at, depth + 1, child, keyStart);
        this.#advance(this.#next);
      }
    } while (this.#continues(indent));
    return out;
  }

  #sequence(indent: number, depth: number, pointer: string): unknown[] {
    this.#count(depth);
    const text = this.#text;
    const out: unknown[] = [];
    do {
      if (!this.#isEntry(this.#start)) return out;
      const child = this.#child(pointer, out.length);
      let at = this.#start + 1;
      while (at < this.#end && text.charCodeAt(at) === space) at++;
      if (at === this.#end || text.charCodeAt(at) === hash) {
        const empty = this.#record ? this.#afterSpaces(this.#start + 1) : 0;
        this.#advance(this.#next);
        const value = this.#nested(indent, depth + 1, false, child, -1, empty);
        if (value === null) this.#count(depth + 1);
        out.push(value);
      } else if (this.#isEntry(at) || this.#startsKey(at)) {
        // `- key: value` or `- - item`: a collection whose first line shares the dash's line.
        this.#start = at;
        this.#indent = at - this.#lineStart;
        out.push(this.#block(this.#indent, depth + 1, child, -1));
      } else {
        out.push(this.#inline(at, depth + 1, child, -1));
        this.#advance(this.#next);
      }
    } while (this.#continues(indent));
    return out;
  }

  #wordEnd(from: number): number {
    const text = this.#text;
    if (!isWordStart(text.charCodeAt(from))) return from;
    let at = from + 1;
    while (isWordPart(text.charCodeAt(at))) at++;
    return at;
  }

  #startsKey(at: number): boolean {
    const end = this.#wordEnd(at);
    return (
      end > at &&
      this.#text.charCodeAt(end) === colon &&
      (end + 1 === this.#end || this.#text.charCodeAt(end + 1) === space)
    );
  }

  /** A value that starts at `at` and ends on this line (before an optional comment). */
  #inline(at: number, depth: number, pointer: string, key: number): unknown {
    this.#place(pointer, at, key);
    const text = this.#text;
    const first = text.charCodeAt(at);
    let value: unknown;
    let after: number;
    if (first === 34 || first === 39 || first === 91 || first === 123) {
      // `"`, `'`, `[`, `{`
      [value, after] =
        first === 91
          ? this.#flowList(at, depth, pointer)
          : first === 123
            ? this.#flowMapping(at, depth, pointer)
            : this.#quoted(at);
      if (first === 34 || first === 39) this.#count(depth);
      if (after < this.#end) {
        if (text.charCodeAt(after) !== space) decline();
        while (text.charCodeAt(after) === space) after++;
        if (text.charCodeAt(after) !== hash) decline();
      }
      return value;
    }
    this.#count(depth);
    // A comment starts at ` #`; a `#` inside a word is part of it (`Trunk#Pass`). A flow indicator,
    // or a `:` before a space or at the end, is left to the parsers (found in the same pass).
    const lineEnd = this.#end;
    let end = at;
    for (; end < lineEnd; end++) {
      const code = text.charCodeAt(end);
      if (code === hash && text.charCodeAt(end - 1) === space) break;
      if (code === 91 || code === 93 || code === 123 || code === 125) decline();
      if (code === colon && (end + 1 === lineEnd || text.charCodeAt(end + 1) === space)) decline();
    }
    while (text.charCodeAt(end - 1) === space) end--;
    const plain = text.slice(at, end);
    if (!plainStartOk(plain)) decline();
    return resolvePlain(plain);
  }

  /** A one-line double- or single-quoted scalar at `at`: its value and the position after it. */
  #quoted(at: number): [string, number] {
    const text = this.#text;
    const quote = text.charCodeAt(at);
    let out = '';
    let from = at + 1;
    for (let index = from; index < this.#end; index++) {
      const code = text.charCodeAt(index);
      if (code === quote) {
        if (quote === 39 && text.charCodeAt(index + 1) === 39) {
          out += text.slice(from, index + 1);
          from = ++index + 1;
          continue;
        }
        return [out + text.slice(from, index), index + 1];
      }
      if (code === 92 && quote === 34) {
        const escaped = simpleEscapes[text[index + 1] ?? ''];
        if (escaped === undefined) decline();
        out += text.slice(from, index) + escaped;
        from = ++index + 1;
      }
    }
    return decline();
  }

  #flowList(at: number, depth: number, pointer: string): [unknown[], number] {
    this.#count(depth);
    const out: unknown[] = [];
    let position = this.#skipSpaces(at + 1);
    if (this.#text.charCodeAt(position) === 93) return [out, position + 1];
    for (;;) {
      const [value, after] = this.#flowScalar(position, depth + 1, this.#child(pointer, out.length), -1);
      out.push(value);
      position = this.#skipSpaces(after);
      const code = this.#text.charCodeAt(position);
      if (code === 93) return [out, position + 1];
      if (code !== 44 || position >= this.#end) decline();
      position = this.#skipSpaces(position + 1);
    }
  }

  #flowMapping(at: number, depth: number, pointer: string): [Record<string, unknown>, number] {
    this.#count(depth);
    const text = this.#text;
    const out: Record<string, unknown> = {};
    let position = this.#skipSpaces(at + 1);
    if (text.charCodeAt(position) === 125) return [out, position + 1];
    for (;;) {
      const keyEnd = this.#wordEnd(position);
      const key = text.slice(position, keyEnd);
      if (keyEnd === position || text.charCodeAt(keyEnd) !== colon || text.charCodeAt(keyEnd + 1) !== space) decline();
      if (reservedWords.has(key) || Object.hasOwn(out, key)) decline();
      const [value, after] = this.#flowScalar(
        this.#skipSpaces(keyEnd + 1),
        depth + 1,
        this.#child(pointer, key),
        position,
      );
      out[key] = value;
      position = this.#skipSpaces(after);
      const code = text.charCodeAt(position);
      if (code === 125) return [out, position + 1];
      if (code !== 44 || position >= this.#end) decline();
      position = this.#skipSpaces(position + 1);
    }
  }

  /** A scalar inside a one-line flow collection, ending before `,`, `]` or `}`. */
  #flowScalar(at: number, depth: number, pointer: string, key: number): [unknown, number] {
    this.#count(depth);
    if (at >= this.#end) decline();
    this.#place(pointer, at, key);
    const first = this.#text.charCodeAt(at);
    if (first === 34 || first === 39) return this.#quoted(at);
    let end = at;
    for (; end < this.#end; end++) {
      const code = this.#text.charCodeAt(end);
      if (code === 44 || code === 93 || code === 125) break;
    }
    let last = end;
    while (this.#text.charCodeAt(last - 1) === space) last--;
    const plain = this.#text.slice(at, last);
    if (plain === '' || !plainStartOk(plain) || /[[{:#]/.test(plain)) decline();
    return [resolvePlain(plain), end];
  }

  /** The offset after the spaces at `at`, past the end of the line's content. */
  #afterSpaces(at: number): number {
    let position = at;
    while (this.#text.charCodeAt(position) === space) position++;
    return position;
  }

  #skipSpaces(at: number): number {
    let position = at;
    while (position < this.#end && this.#text.charCodeAt(position) === space) position++;
    return position;
  }
}

const simpleEscapes: Readonly<Record<string, string>> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t' };

/** A plain scalar may not start with an indicator; `-` only before a digit (a negative number). */
function plainStartOk(plain: string): boolean {
  const first = plain.charCodeAt(0);
  if (first === dash) return plain.charCodeAt(1) >= 48 && plain.charCodeAt(1) <= 57;
  return !'?:,[]{}#&*!|>\'"%@`'.includes(plain[0] ?? '?');
}

/** A plain scalar by the YAML 1.2 core schema; anything number-like but a plain decimal integer is declined. */
function resolvePlain(plain: string): unknown {
  switch (plain) {
    case '~':
    case 'null':
    case 'Null':
    case 'NULL':
      return null;
    case 'true':
    case 'True':
    case 'TRUE':
      return true;
    case 'false':
    case 'False':
    case 'FALSE':
      return false;
    default:
  }
  // Only a digit, a sign or a dot can start something number-like.
  const first = plain.charCodeAt(0);
  if (((first >= 48 && first <= 57) || first === 45 || first === 43 || first === 46) && numberLike.test(plain)) {
    if (!decimalInteger.test(plain) || plain === '-0') decline();
    const number = Number(plain);
    if (!Number.isSafeInteger(number)) decline();
    return number;
  }
  return plain;
}
