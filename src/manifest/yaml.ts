import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node } from 'yaml';
import type { ManifestText } from './files.js';
import type { ProblemList } from './problems.js';
import { childPointer, Positions, type LineColumn, type ValuePosition } from './source.js';
import { maxDepth, maxValuesPerDocument, type YamlDocument } from './yaml-document.js';

/**
 * YAML to plain values with the position of every value.
 *
 * The `yaml` package parses (YAML 1.2 core schema, so `yes` stays a string; duplicate keys and
 * tab indentation are its errors); this module walks the node tree itself instead of calling
 * `toJS()`, so that it can record positions by JSON pointer and bound what a hostile file costs:
 * aliases are expanded within a budget (an "alias bomb" of nested aliases is refused at the alias
 * that exceeds it) and nesting deeper than `maxDepth` is refused.
 */

class WalkLimit extends Error {
  constructor(
    readonly code: 'yaml_alias' | 'yaml_too_deep' | 'yaml_key',
    message: string,
    readonly at: LineColumn,
  ) {
    super(message);
  }
}

export function parseYamlDocuments(source: ManifestText, problems: ProblemList): YamlDocument[] {
  const lineCounter = new LineCounter();
  const at = (offset: number): { source: { file: string; line: number; column: number } } => {
    const { line, col } = lineCounter.linePos(offset);
    return { source: { file: source.file, line, column: col } };
  };
  let documents: Document.Parsed[];
  try {
    documents = parseAllDocuments(source.text, {
      lineCounter,
      prettyErrors: false,
      uniqueKeys: true,
      intAsBigInt: true,
    }) as Document.Parsed[];
  } catch (error) {
    // The parser recurses on flow collections; tens of thousands of `[` exhaust the stack.
    if (error instanceof RangeError) {
      problems.error(
        'yaml_too_deep',
        `the YAML is nested too deeply to parse (more than ${maxDepth} levels are refused anyway)`,
        at(0),
      );
      return [];
    }
    throw error;
  }
  const result: YamlDocument[] = [];
  let index = -1;
  for (const document of documents) {
    if (!isEmpty(document)) index++;
    if (document.errors.length > 0) {
      for (const error of document.errors) {
        // The composer catches its own stack overflow on absurdly nested flow collections.
        if (/call stack/i.test(error.message)) {
          const offset = firstTooDeepBracket(source.text, document.range[0]);
          problems.error('yaml_too_deep', `values are nested more than ${maxDepth} levels deep`, at(offset));
        } else {
          problems.error(
            'yaml_syntax',
            syntaxMessage(error.code, error.message, source.text, error.pos[0]),
            at(error.pos[0]),
          );
        }
      }
      continue;
    }
    for (const warning of document.warnings)
      problems.warning('yaml_warning', yamlMessage(warning.message), at(warning.pos[0]));
    if (isEmpty(document)) continue;
    const positions = new Map<string, ValuePosition>();
    const walker = new Walker(document, lineCounter, positions);
    try {
      const value = walker.walk(document.contents, '', 0, undefined);
      result.push({
        file: source.file,
        absolute: source.absolute,
        index,
        value,
        positions: new Positions(() => positions),
      });
    } catch (error) {
      if (!(error instanceof WalkLimit)) throw error;
      problems.error(error.code, error.message, { source: { file: source.file, ...error.at } });
    }
  }
  return result;
}

/** An empty document (`---` alone, or only comments) is ignored, as is an explicit null. */
function isEmpty(document: Document.Parsed): boolean {
  const contents = document.contents;
  return contents === null || (isScalar(contents) && contents.value === null);
}

/**
 * The positions of every non-empty document of a file, by index: for documents read by the fast
 * path, whose positions are computed only when asked for. A document that cannot be walked (it
 * would have been an error) has none, so places fall back to the start of the file.
 */
export function documentPositions(text: string): Array<ReadonlyMap<string, ValuePosition>> {
  const lineCounter = new LineCounter();
  const maps: Array<ReadonlyMap<string, ValuePosition>> = [];
  let documents: Document.Parsed[];
  try {
    documents = parseAllDocuments(text, {
      lineCounter,
      prettyErrors: false,
      uniqueKeys: true,
      intAsBigInt: true,
    }) as Document.Parsed[];
  } catch {
    return maps;
  }
  for (const document of documents) {
    if (isEmpty(document)) continue;
    const positions = new Map<string, ValuePosition>();
    try {
      new Walker(document, lineCounter, positions).walk(document.contents, '', 0, undefined);
    } catch {
      positions.clear();
    }
    maps.push(positions);
  }
  return maps;
}

/**
 * Where flow brackets first nest deeper than `maxDepth`, scanning from `start` (quotes and
 * comments roughly skipped): a stable place for the error, unlike where the stack ran out.
 */
function firstTooDeepBracket(text: string, start: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let index = start; index < text.length; index++) {
    const char = text[index];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === '#') index = text.indexOf('\n', index) === -1 ? text.length : text.indexOf('\n', index);
    else if (char === '[' || char === '{') {
      if (++depth > maxDepth) return index;
    } else if (char === ']' || char === '}') depth--;
  }
  return start;
}

/** Clearer words for the syntax errors people make most; the `yaml` package's message otherwise. */
function syntaxMessage(code: string, message: string, text: string, offset: number): string {
  switch (code) {
    case 'DUPLICATE_KEY': {
      const key = /^[^:\n]*/.exec(text.slice(offset))?.[0].trim() ?? '';
      return `duplicate key ${JSON.stringify(key)}: the keys of a mapping must be unique`;
    }
    case 'TAB_AS_INDENT':
      return 'a tab is used for indentation; YAML indents with spaces only';
    default:
      return yamlMessage(message);
  }
}

/** The `yaml` package's message without its trailing position or code excerpt. */
function yamlMessage(message: string): string {
  const firstLine = message.split('\n')[0] ?? message;
  const trimmed = withoutSource(firstLine.replace(/ at line \d+, column \d+:?$/, '').trim());
  return trimmed.endsWith('.') ? trimmed.slice(0, -1) : trimmed;
}

/**
 * Some of the `yaml` package's messages quote the text they stumbled on, which may be a secret
 * written on the wrong line; the place is enough, so the quoted text is dropped.
 */
function withoutSource(message: string): string {
  const quoted = /^(.*?): ".*"$/s.exec(message);
  if (quoted) return quoted[1] as string;
  const echoed =
    /^(Block scalar header includes extra characters|Not a valid tag|Invalid escape sequence|Unresolved plain scalar|Could not resolve tag)\b/.exec(
      message,
    );
  return echoed ? (echoed[1] as string) : message;
}

class Walker {
  #values = 0;
  readonly #aliasesInProgress = new Set<Node>();
  #outermostAlias: LineColumn | undefined;

  constructor(
    private readonly document: Document.Parsed,
    private readonly lineCounter: LineCounter,
    private readonly positions: Map<string, ValuePosition>,
  ) {}

  #at(offset: number | undefined): LineColumn {
    const { line, col } = this.lineCounter.linePos(offset ?? 0);
    return { line, column: col };
  }

  walk(node: unknown, pointer: string, depth: number, key: LineColumn | undefined): unknown {
    if (depth > maxDepth) {
      throw new WalkLimit(
        'yaml_too_deep',
        `values are nested more than ${maxDepth} levels deep`,
        this.#at((node as Node | null)?.range?.[0]),
      );
    }
    if (++this.#values > maxValuesPerDocument) {
      // Blame the outermost alias being expanded: that is what the reader wrote to cause it.
      const at = this.#outermostAlias ?? this.#at((node as Node | null)?.range?.[0]);
      throw new WalkLimit(
        'yaml_alias',
        `the document expands to more than ${maxValuesPerDocument} values (an alias bomb?)`,
        at,
      );
    }
    if (node === null || node === undefined) {
      // `key:` with nothing after it: a null written where the key is.
      if (key) this.positions.set(pointer, { value: key, key });
      return null;
    }
    if (isAlias(node)) return this.#walkAlias(node, pointer, depth, key);
    const start = this.#at((node as Node).range?.[0]);
    this.positions.set(pointer, key ? { value: start, key } : { value: start });
    if (isScalar(node)) return scalarValue(node.value);
    if (isSeq(node))
      return node.items.map((item, index) => this.walk(item, childPointer(pointer, index), depth + 1, undefined));
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const keyAt = this.#at(keyNode?.range?.[0] ?? (pair.value as Node | null)?.range?.[0]);
        if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object') {
          throw new WalkLimit('yaml_key', 'a mapping key must be a plain word, not a list, mapping or null', keyAt);
        }
        const name = String(keyNode.value);
        const value = this.walk(pair.value, childPointer(pointer, name), depth + 1, keyAt);
        // `__proto__` as a key must stay an ordinary field, not reach the prototype.
        if (name === '__proto__')
          Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
        else out[name] = value;
      }
      return out;
    }
    throw new WalkLimit('yaml_key', 'unsupported YAML node', start);
  }

  #walkAlias(
    node: Node & { source: string; resolve(document: Document): Node | undefined },
    pointer: string,
    depth: number,
    key: LineColumn | undefined,
  ): unknown {
    const at = this.#at(node.range?.[0]);
    const target = node.resolve(this.document);
    if (!target) throw new WalkLimit('yaml_alias', `the alias *${node.source} names no anchor defined before it`, at);
    if (this.#aliasesInProgress.has(target))
      throw new WalkLimit('yaml_alias', `the alias *${node.source} refers to a value containing itself`, at);
    this.#aliasesInProgress.add(target);
    const outermost = this.#outermostAlias === undefined;
    if (outermost) this.#outermostAlias = at;
    try {
      return this.walk(target, pointer, depth, key ?? at);
    } finally {
      this.#aliasesInProgress.delete(target);
      if (outermost) this.#outermostAlias = undefined;
    }
  }
}

/**
 * Scalars as JSON-like values: binary (`!!binary`) and other non-JSON values become strings.
 * Integers are parsed as bigint and kept so only when a number would lose digits (an app_id
 * written unquoted), so the message shows what was written, not a rounded number.
 */
function scalarValue(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number')
    return value;
  if (typeof value === 'bigint')
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  return String(value);
}
