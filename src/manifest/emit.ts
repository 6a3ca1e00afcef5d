import { printable } from '../util/printable.js';
import { apiVersion } from './document.js';

/**
 * Writes manifests (for `telform import`): documents in the format the loader reads, with the
 * `yaml-language-server` schema comment first, so editors validate them.
 */
export interface EmittedResource {
  kind: string;
  name: string;
  spec: Record<string, unknown>;
  /** Comment lines above the document (e.g. where the secret comes from). */
  comments?: string[];
}

export async function emitManifest(resources: readonly EmittedResource[], schemaPath: string): Promise<string> {
  return joinDocuments(await emitDocuments(resources), schemaPath);
}

/** A file's text from its documents' (`emitDocument`), under the schema comment. */
export function joinDocuments(documents: readonly string[], schemaPath: string): string {
  return `# yaml-language-server: $schema=${schemaPath}\n${documents.join('---\n')}`;
}

/**
 * Each resource's document, without the schema comment. The shapes an import writes (plain words,
 * addresses, numbers, short lists, refs) are written directly, byte for byte as the `yaml` package
 * writes them (test/manifest/emit-fast.test.ts compares the two); anything else goes through it,
 * loaded only then (it is most of a command's start-up code).
 */
export async function emitDocuments(resources: readonly EmittedResource[]): Promise<string[]> {
  const documents = resources.map(emitDocumentFast);
  if (documents.every((document) => document !== undefined)) return documents as string[];
  const { emitDocumentExactly } = await import('./emit-exact.js');
  return documents.map((document, index) => document ?? emitDocumentExactly(resources[index]!));
}

// The fast writer. Each function returns undefined for what it does not know to write exactly as
// `emitDocumentExactly` would; the whole document then goes the exact way.

/** Printable ASCII: anything else (escapes, bidi, separators, non-ASCII) takes the exact way. */
const plainAscii = /^[\x20-\x7e]*$/;
/** Strings YAML 1.2's core schema would read as another type (null, booleans, numbers): quoted. */
const coreTyped =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
/** What a plain scalar may not start with, hold or end with (indicators, `: `, ` #`). */
const notPlain = /^[ ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-] |: |:$| #| $/;
const flowIndicators = /[[\]{},]/;
const documentMarker = /^(?:%|---|\.\.\.)/;
const simpleKey = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Scalar = string | number | boolean | null;

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

function scalarText(value: Scalar, inFlow: boolean): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && !Object.is(value, -0) ? String(value) : undefined;
  if (!plainAscii.test(value) || documentMarker.test(value)) return undefined;
  const plain =
    value !== '' && !notPlain.test(value) && !(inFlow && flowIndicators.test(value)) && !coreTyped.test(value);
  if (plain) return value;
  return value.includes('"') || value.includes('\\') ? undefined : `"${value}"`;
}

function keyText(key: string): string | undefined {
  return simpleKey.test(key) && !coreTyped.test(key) ? key : undefined;
}

/** `[ a, b ]`: a list of at most 8 scalars (the exact way's `flowShortLists`). */
function flowList(items: readonly unknown[]): string | undefined {
  if (items.length === 0) return '[]';
  const texts: string[] = [];
  for (const item of items) {
    const text = isScalar(item) ? scalarText(item, true) : undefined;
    if (text === undefined) return undefined;
    texts.push(text);
  }
  return `[ ${texts.join(', ')} ]`;
}

function isShortScalarList(value: readonly unknown[]): boolean {
  return value.length <= 8 && value.every(isScalar);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

/** `{ ref: name }`. */
function flowRef(value: Record<string, unknown>): string | undefined {
  const target = value['ref'];
  const text = isScalar(target) ? scalarText(target, true) : undefined;
  return text === undefined ? undefined : `{ ref: ${text} }`;
}

function isRefOnly(value: Record<string, unknown>): boolean {
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'ref';
}

/**
 * What follows `key:` on the key's line: ` value` for what fits inline, or a line break and the
 * block at `indent` + 2 (a nested map) or at `indent` + 2 too (a list, indented under its key).
 */
function valueAfterKey(value: unknown, indent: string): string | undefined {
  if (value === undefined) return undefined;
  if (isScalar(value)) {
    const text = scalarText(value, false);
    return text === undefined ? undefined : ` ${text}\n`;
  }
  if (Array.isArray(value)) {
    if (isShortScalarList(value)) {
      const text = flowList(value);
      return text === undefined ? undefined : ` ${text}\n`;
    }
    const block = blockList(value, `${indent}  `);
    return block === undefined ? undefined : `\n${block}`;
  }
  if (isPlainObject(value)) {
    if (Object.keys(value).length === 0) return ' {}\n';
    if (isRefOnly(value)) {
      const text = flowRef(value);
      return text === undefined ? undefined : ` ${text}\n`;
    }
    const block = blockMap(value, `${indent}  `, `${indent}  `);
    return block === undefined ? undefined : `\n${block}`;
  }
  return undefined;
}

/** A block map's lines, its first key after `first` (the indent, or `- ` in a list) and the others at `indent`. */
function blockMap(map: Record<string, unknown>, first: string, indent: string): string | undefined {
  let text = '';
  let lead = first;
  for (const [key, value] of Object.entries(map)) {
    const keyPart = keyText(key);
    if (keyPart === undefined || value === undefined) return undefined;
    const rest = valueAfterKey(value, indent);
    if (rest === undefined) return undefined;
    text += `${lead}${keyPart}:${rest}`;
    lead = indent;
  }
  return text;
}

/** A block list's lines at `indent`: scalars, short scalar lists inline, refs, and non-empty maps. */
function blockList(items: readonly unknown[], indent: string): string | undefined {
  let text = '';
  for (const item of items) {
    let line: string | undefined;
    if (isScalar(item)) {
      const scalar = scalarText(item, false);
      line = scalar === undefined ? undefined : `${indent}- ${scalar}\n`;
    } else if (Array.isArray(item)) {
      const flow = item.length > 0 && isShortScalarList(item) ? flowList(item) : undefined;
      line = flow === undefined ? undefined : `${indent}- ${flow}\n`;
    } else if (isPlainObject(item) && Object.keys(item).length > 0) {
      if (isRefOnly(item)) {
        const ref = flowRef(item);
        line = ref === undefined ? undefined : `${indent}- ${ref}\n`;
      } else line = blockMap(item, `${indent}- `, `${indent}  `);
    }
    if (line === undefined) return undefined;
    text += line;
  }
  return text;
}

/** Directly, or undefined when the resource holds anything the fast writer leaves to the exact one. */
export function emitDocumentFast(resource: EmittedResource): string | undefined {
  let comment = '';
  for (const line of resource.comments ?? []) {
    const shown = printable(line);
    if (shown === '' || !plainAscii.test(shown)) return undefined;
    comment += `# ${shown}\n`;
  }
  const kind = scalarText(resource.kind, false);
  const name = scalarText(resource.name, false);
  const spec = isPlainObject(resource.spec) ? valueAfterKey(resource.spec, '') : undefined;
  if (kind === undefined || name === undefined || spec === undefined) return undefined;
  const body = `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:${spec}`;
  return comment === '' ? body : `${comment}\n${body}`;
}
