// Rewrites values of a manifest file in place (`drift --write`), keeping every other byte: the file
// is parsed with the `yaml` package's document API only to find where each value is written, and
// each change is spliced into the original text at that range. Comments, key order, quoting,
// blank lines and the other documents are never re-serialised. Pure: text in, text out.
import { isMap, isScalar, isSeq, parseAllDocuments, Scalar, stringify, type Node, type Pair, type YAMLMap } from 'yaml';
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

export function rewriteManifest(text: string, edits: readonly DocumentEdit[]): Rewrite {
  const documents = parseAllDocuments(text);
  const list = Array.isArray(documents) ? documents : [];
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
      const splice = spliceField(text, spec, field, value);
      if (typeof splice === 'string') notes.push(`${edit.address} ${field}: ${splice}`);
      else {
        splices.push(...splice);
        written.push(`${edit.address} ${field}`);
      }
    }
  }
  splices.sort((a, b) => b.start - a.start);
  let out = text;
  for (const splice of splices) out = out.slice(0, splice.start) + splice.text + out.slice(splice.end);
  return { text: out, written, notes };
}

/** The splices that set (or remove) `field` of `spec`, or why it cannot be done in place. */
function spliceField(text: string, spec: YAMLMap, field: string, value: unknown): Splice[] | string {
  const pair = spec.items.find((item) => isScalar(item.key) && item.key.value === field) as Pair<Node, Node | null> | undefined;
  const indent = columnOf(text, (spec.items[0]?.key as Node | undefined)?.range?.[0] ?? 0);
  if (!pair) {
    if (value === undefined) return [];
    // A new field goes after the last one, as a line of its own at the fields' indentation.
    const end = spec.range?.[1] ?? text.length;
    const lineEnd = text.indexOf('\n', Math.max(0, end - 1));
    const rendered = renderValue(value, indent);
    const line = `${' '.repeat(indent)}${field}:${rendered.startsWith('\n') ? '' : ' '}${rendered}`;
    return lineEnd < 0 ? [{ start: text.length, end: text.length, text: `\n${line}\n` }] : [{ start: lineEnd + 1, end: lineEnd + 1, text: `${line}\n` }];
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
  if (!node?.range) return [{ start: key.range?.[1] ?? 0, end: key.range?.[1] ?? 0, text: `: ${renderValue(value, indent + 2)}` }];
  if (isMap(node) && node.items.length === 1 && isScalar(node.items[0]?.key) && node.items[0].key.value === 'value') {
    return 'is taken from a value ({ value: NAME }); change the value where it is defined';
  }
  if (isRef(value) && isMap(node)) {
    const target = node.items.find((item) => isScalar(item.key) && item.key.value === 'ref')?.value;
    if (isScalar(target) && target.range && node.items.length === 1) return [{ start: target.range[0], end: target.range[1], text: renderScalar(value.ref, target) }];
  }
  if (Array.isArray(value) && isSeq(node) && !node.flow && node.items.every((item) => isScalar(item)) && value.every((item) => typeof item !== 'object')) {
    return spliceBlockList(text, node.items as Scalar[], value);
  }
  if (isScalar(node) && (value === null || typeof value !== 'object')) return [{ start: node.range[0], end: node.range[1], text: renderScalar(value, node) }];
  const rendered = renderValue(value, columnOf(text, key.range?.[0] ?? 0) + 2);
  if (rendered.startsWith('\n') && !(isSeq(node) || isMap(node)) ) return 'the value changes shape; edit it by hand';
  const start = rendered.startsWith('\n') ? (key.range?.[1] ?? node.range[0]) + 1 : node.range[0];
  const end = rendered.startsWith('\n') ? trimNewline(text, node.range[1]) : node.range[1];
  return [{ start, end, text: rendered }];
}

/**
 * A block list of plain values edited item by item (sets like `ip_addresses`): items the account
 * dropped lose their line, items it added get a line after the last, the rest keep theirs.
 */
function spliceBlockList(text: string, items: readonly Scalar[], value: readonly unknown[]): Splice[] {
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
    const lines = added.map((item) => `${prefix}- ${renderScalar(item, last)}\n`).join('');
    splices.push(end < 0 ? { start: text.length, end: text.length, text: `\n${lines}` } : { start: end + 1, end: end + 1, text: lines });
  }
  return splices;
}

/** A scalar in the style of the one it replaces (plain stays plain when it reads back the same). */
function renderScalar(value: unknown, like: Scalar | undefined): string {
  if (typeof value !== 'string') return value === null ? 'null' : String(value);
  const type = like?.type;
  if (type === 'QUOTE_SINGLE') return `'${value.replace(/'/g, "''")}'`;
  if (type === 'QUOTE_DOUBLE' || !readsBackAs(value)) return JSON.stringify(value);
  return value;
}

/** Whether `value` written plain parses back as that same string. */
function readsBackAs(value: string): boolean {
  if (value === '' || value !== value.trim() || /[\n#]|: /.test(value)) return false;
  try {
    const parsed = parseAllDocuments(`x: ${value}\n`);
    const first = Array.isArray(parsed) ? parsed[0] : undefined;
    return first !== undefined && first.errors.length === 0 && first.get('x') === value;
  } catch {
    return false;
  }
}

/** A value of any shape: `{ ref: name }` and lists of plain values in flow style, other values as YAML blocks indented by `indent`. */
function renderValue(value: unknown, indent: number): string {
  if (isRef(value)) return `{ ref: ${renderScalar(value.ref, undefined)} }`;
  if (value === null || typeof value !== 'object') return renderScalar(value, undefined);
  if (Array.isArray(value) && value.every((item) => item === null || typeof item !== 'object')) {
    // In a flow list a plain value must not hold the list's own punctuation either.
    return `[${value.map((item) => (typeof item === 'string' && /[,[\]{}]/.test(item) ? JSON.stringify(item) : renderScalar(item, undefined))).join(', ')}]`;
  }
  const block = stringify(value, { indent: 2 }).trimEnd();
  return `\n${block
    .split('\n')
    .map((line) => `${' '.repeat(indent)}${line}`)
    .join('\n')}`;
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function columnOf(text: string, offset: number): number {
  return offset - lineStart(text, offset);
}

function trimNewline(text: string, end: number): number {
  return text[end - 1] === '\n' ? end - 1 : end;
}
