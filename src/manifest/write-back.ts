// Rewrites values of a manifest file in place (`drift --write`), keeping every other byte: the file
// is parsed with the `yaml` package's document API only to find where each value is written, and
// each change is spliced into the original text at that range. Comments, key order, quoting,
// blank lines and the other documents are never re-serialised. The result is parsed again and
// compared with what was meant before anyone saves it. Pure: text in, text out.
import { isDeepStrictEqual } from 'node:util';
import {
  isMap,
  isScalar,
  isSeq,
  parseAllDocuments,
  Scalar,
  stringify,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';
import { doubleQuotedYaml, escapeRawInDoubleQuoted, needsYamlEscape } from './yaml-escape.js';
import { isRef } from './model.js';

/** Values to write into one resource's document, found by the line of its `metadata.name`. */
export interface DocumentEdit {
  address: string;
  /** 1-based line of the resource's metadata.name. */
  line: number;
  /** Each field of `spec`: the value to write, or `undefined` to remove the field. */
  fields: ReadonlyArray<{ field: string; value: unknown }>;
}

export interface Rewrite {
  text: string;
  /** `Kind/name field`, for each value written. */
  written: string[];
  /** Values that could not be written in place, and why. */
  notes: string[];
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

/** The line end new lines get: the file's own (a CRLF file stays CRLF). */
interface Layout {
  eol: string;
}

export function rewriteManifest(text: string, edits: readonly DocumentEdit[]): Rewrite {
  const documents = parseAllDocuments(text);
  const list = Array.isArray(documents) ? documents : [];
  const layout: Layout = { eol: text.includes('\r\n') ? '\r\n' : '\n' };
  const meant: Array<{ document: number; field: string; value: unknown }> = [];
  const lineStarts = [0];
  for (let index = 0; index < text.length; index++) if (text[index] === '\n') lineStarts.push(index + 1);
  const splices: Splice[] = [];
  const written: string[] = [];
  const notes: string[] = [];
  for (const edit of edits) {
    const offset = lineStarts[edit.line - 1] ?? text.length;
    const document = list.filter((candidate) => (candidate.range?.[0] ?? 0) <= offset).at(-1);
    const spec = document?.get('spec', true);
    if (!isMap(spec) || spec.flow) {
      notes.push(`${edit.address}: its spec is not a block mapping at line ${edit.line}, so it is left as it is`);
      continue;
    }
    for (const { field, value } of edit.fields) {
      const splice = spliceField(text, spec, field, value, layout);
      if (typeof splice === 'string') notes.push(`${edit.address} ${field}: ${splice}`);
      else {
        splices.push(...splice);
        written.push(`${edit.address} ${field}`);
        meant.push({ document: list.findIndex((candidate) => candidate === document), field, value });
      }
    }
  }
  // Last first, so earlier offsets stay right; of two insertions at one place, the one asked first comes first.
  const ordered = splices
    .map((splice, index) => ({ splice, index }))
    .sort((a, b) => b.splice.start - a.splice.start || b.index - a.index);
  let out = text;
  for (const { splice } of ordered) out = out.slice(0, splice.start) + splice.text + out.slice(splice.end);
  if (written.length === 0) return { text, written, notes };
  const problem = readBackProblem(list, out, meant);
  if (problem === undefined) return { text: out, written, notes };
  return {
    text,
    written: [],
    notes: [
      ...notes,
      `${written.join(', ')}: not written, the rewritten file would not read back as these values (${problem}); the file is left unchanged, edit it by hand`,
    ],
  };
}

/**
 * Why the rewritten text does not say exactly what was meant (the old documents with the written
 * fields changed, nothing else), or undefined when it does. An edit that would save a file that
 * does not parse, or parses to other values, is never saved.
 */
function readBackProblem(
  before: ReadonlyArray<Pick<Document, 'toJS'>>,
  after: string,
  meant: ReadonlyArray<{ document: number; field: string; value: unknown }>,
): string | undefined {
  const parsed = parseAllDocuments(after);
  const documents = Array.isArray(parsed) ? parsed : [];
  const broken = documents.find((document) => document.errors.length > 0);
  if (broken) return `YAML error: ${broken.errors[0]?.message.split('\n')[0] ?? 'unknown'}`;
  if (documents.length !== before.length) return `${documents.length} documents instead of ${before.length}`;
  const expected = before.map((document) => document.toJS() as unknown);
  for (const { document, field, value } of meant) {
    const spec = (expected[document] as { spec?: Record<string, unknown> } | undefined)?.spec;
    if (spec === undefined) return 'a document lost its spec';
    if (value === undefined) delete spec[field];
    else spec[field] = structuredClone(value);
  }
  for (const [index, document] of documents.entries()) {
    if (!isDeepStrictEqual(normalised(document.toJS()), normalised(expected[index])))
      return `document ${index + 1} reads back differently`;
  }
  return undefined;
}

/** Plain data for comparison (a ref written as `{ ref: x }` and one built in memory compare equal). */
function normalised(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null)) as unknown;
}

/** The splices that set (or remove) `field` of `spec`, or why it cannot be done in place. */
function spliceField(text: string, spec: YAMLMap, field: string, value: unknown, layout: Layout): Splice[] | string {
  const pair = spec.items.find((item) => isScalar(item.key) && item.key.value === field) as
    Pair<Node, Node | null> | undefined;
  const indent = columnOf(text, (spec.items[0]?.key as Node | undefined)?.range?.[0] ?? 0);
  if (!pair) {
    if (value === undefined) return [];
    // A new field goes after the last one, as a line of its own at the fields' indentation.
    const end = spec.range?.[1] ?? text.length;
    const lineEnd = text.indexOf('\n', Math.max(0, end - 1));
    const rendered = renderValue(value, indent, layout);
    const line = `${' '.repeat(indent)}${field}:${rendered.startsWith(layout.eol) ? '' : ' '}${rendered}`;
    // At the very end of a file without a final line end, the new line goes after one and the file still ends without.
    return lineEnd < 0
      ? [{ start: text.length, end: text.length, text: `${layout.eol}${line}` }]
      : [{ start: lineEnd + 1, end: lineEnd + 1, text: `${line}${layout.eol}` }];
  }
  const key = pair.key as Node;
  const node = pair.value;
  if (value === undefined) {
    // The whole field goes: from the start of its key's line to the end of its value's last line.
    const start = lineStart(text, key.range?.[0] ?? 0);
    const last = node?.range?.[1] ?? key.range?.[1] ?? start;
    const end = text.indexOf('\n', Math.max(start, last - 1));
    return [{ start, end: end < 0 ? text.length : end + 1, text: '' }];
  }
  if (!node?.range)
    return [
      { start: key.range?.[1] ?? 0, end: key.range?.[1] ?? 0, text: `: ${renderValue(value, indent + 2, layout)}` },
    ];
  if (isMap(node) && node.items.length === 1 && isScalar(node.items[0]?.key) && node.items[0].key.value === 'value') {
    return 'is taken from a value ({ value: NAME }); change the value where it is defined';
  }
  if (isRef(value) && isMap(node)) {
    const target = node.items.find((item) => isScalar(item.key) && item.key.value === 'ref')?.value;
    if (isScalar(target) && target.range && node.items.length === 1)
      return [{ start: target.range[0], end: target.range[1], text: renderScalar(value.ref, target) }];
  }
  if (
    Array.isArray(value) &&
    isSeq(node) &&
    !node.flow &&
    node.items.every((item) => isScalar(item)) &&
    value.every((item) => typeof item !== 'object')
  ) {
    return spliceBlockList(text, node.items as Scalar[], value, layout);
  }
  if (isScalar(node) && (value === null || typeof value !== 'object')) {
    if (node.type === 'BLOCK_FOLDED' || node.type === 'BLOCK_LITERAL') {
      // A block scalar's range ends after its last line end, which the key after it needs: keep it.
      const lineEnds = /(?:\r?\n)+$/.exec(text.slice(node.range[0], node.range[1]))?.[0] ?? '';
      return [{ start: node.range[0], end: node.range[1], text: `${renderScalar(value, undefined, true)}${lineEnds}` }];
    }
    return [{ start: node.range[0], end: node.range[1], text: renderScalar(value, node) }];
  }
  const rendered = renderValue(value, columnOf(text, key.range?.[0] ?? 0) + 2, layout);
  const block = rendered.startsWith(layout.eol);
  if (block && !(isSeq(node) || isMap(node))) return 'the value changes shape; edit it by hand';
  const start = block ? (key.range?.[1] ?? node.range[0]) + 1 : node.range[0];
  const end = block ? trimLineEnd(text, node.range[1]) : node.range[1];
  return [{ start, end, text: block ? rendered.slice(layout.eol.length - 1) : rendered }];
}

/**
 * A block list of plain values edited item by item (sets like `ip_addresses`): items the account
 * dropped lose their line, items it added get a line after the last, the rest keep theirs.
 */
function spliceBlockList(text: string, items: readonly Scalar[], value: readonly unknown[], layout: Layout): Splice[] {
  const wanted = value.map((item) => String(item));
  const present = items.map((item) => String(item.value));
  const splices: Splice[] = [];
  for (const item of items) {
    if (wanted.includes(String(item.value)) || !item.range) continue;
    const start = lineStart(text, item.range[0]);
    const end = text.indexOf('\n', item.range[1] - 1);
    splices.push({ start, end: end < 0 ? text.length : end + 1, text: '' });
  }
  const added = value.filter((item) => !present.includes(String(item)));
  const last = items.at(-1);
  if (added.length > 0 && last?.range) {
    const dash = text.lastIndexOf('-', last.range[0]);
    const prefix = text.slice(lineStart(text, dash), dash);
    const end = text.indexOf('\n', last.range[1] - 1);
    const lines = added.map((item) => `${prefix}- ${renderScalar(item, last)}`);
    splices.push(
      end < 0
        ? { start: text.length, end: text.length, text: lines.map((line) => `${layout.eol}${line}`).join('') }
        : { start: end + 1, end: end + 1, text: lines.map((line) => `${line}${layout.eol}`).join('') },
    );
  }
  return splices;
}

/**
 * A scalar in the style of the one it replaces (plain stays plain when it reads back the same,
 * single-quoted when it can hold the value); otherwise, or with `quoted`, double-quoted.
 */
function renderScalar(value: unknown, like: Scalar | undefined, quoted = false): string {
  if (typeof value !== 'string') return value === null ? 'null' : String(value);
  if (quoted || needsYamlEscape.test(value)) return doubleQuotedYaml(value);
  const type = like?.type;
  if (type === 'QUOTE_SINGLE') return `'${value.replace(/'/g, "''")}'`;
  if (type === 'QUOTE_DOUBLE' || !readsBackAs(value)) return doubleQuotedYaml(value);
  return value;
}

/** Whether `value` written plain parses back as that same string. */
function readsBackAs(value: string): boolean {
  if (value === '' || value !== value.trim() || /[\n#]|: /.test(value) || needsYamlEscape.test(value)) return false;
  try {
    const parsed = parseAllDocuments(`x: ${value}\n`);
    const first = Array.isArray(parsed) ? parsed[0] : undefined;
    return first !== undefined && first.errors.length === 0 && first.get('x') === value;
  } catch {
    return false;
  }
}

/** A value of any shape: `{ ref: name }` and lists of plain values in flow style, other values as YAML blocks indented by `indent`. */
function renderValue(value: unknown, indent: number, layout: Layout): string {
  if (isRef(value)) return `{ ref: ${renderScalar(value.ref, undefined)} }`;
  if (value === null || typeof value !== 'object') return renderScalar(value, undefined);
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object')) {
    // In a flow list a plain value must not hold the list's own punctuation either.
    return `[${value.map((item) => (typeof item === 'string' && /[,[\]{}]/.test(item) ? doubleQuotedYaml(item) : renderScalar(item, undefined))).join(', ')}]`;
  }
  // With a character to escape anywhere, every string is double-quoted, where the escape is possible.
  const escaping = needsYamlEscape.test(JSON.stringify(value));
  const block = stringify(value, {
    indent: 2,
    lineWidth: 0,
    ...(escaping ? { defaultStringType: 'QUOTE_DOUBLE' as const } : {}),
  }).trimEnd();
  const safe = escaping ? escapeRawInDoubleQuoted(block) : block;
  return `${layout.eol}${safe
    .split('\n')
    .map((line) => `${' '.repeat(indent)}${line}`)
    .join(layout.eol)}`;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function columnOf(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

/** `end` before a line end the range includes (LF or CRLF). */
function trimLineEnd(text: string, end: number): number {
  if (text[end - 1] !== '\n') return end;
  return text[end - 2] === '\r' ? end - 2 : end - 1;
}
