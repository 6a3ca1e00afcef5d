import type { ManifestText } from './files.js';
import { Positions, type LineColumn, type ValuePosition } from './source.js';
import { maxDepth, maxValuesPerDocument, type YamlDocument } from './yaml-document.js';
import type { Pacer } from '../util/pace.js';
import { documentOffsets, parseYamlSubsetPaced, type SubsetOffsets } from './yaml-subset.js';

/**
 * The two YAML libraries, loaded on first need: a command whose files are all in the plain subset
 * (what people and `telform import` write) never compiles their half a megabyte of code.
 */
export interface FullParsers {
  jsYaml: typeof import('js-yaml');
  exact: typeof import('./yaml.js');
}

let fullParsers: FullParsers | undefined;

export async function loadFullParsers(): Promise<FullParsers> {
  if (!fullParsers) {
    const [jsYaml, exact] = await Promise.all([import('js-yaml'), import('./yaml.js')]);
    fullParsers = { jsYaml, exact };
  }
  return fullParsers;
}

/** What `parseYamlFast` answers when the file needs a YAML library that is not loaded yet. */
export const needsParsers = Symbol('needs the YAML libraries');

/**
 * The fast path for clean files. The `yaml` package, which gives exact positions and the best
 * error messages, takes about ten times as long as `js-yaml` to parse (over 1.5 s alone for
 * 10,000 resources, the target for all of validation). So a file is first read by the plain
 * subset reader (`yaml-subset.ts`, several times faster again), else with `js-yaml` (YAML 1.2 core
 * schema, like the `yaml` package's default). Positions are computed only when something asks for
 * a place: by the subset reader for a file it read, by the `yaml` package for one js-yaml read.
 *
 * The fast path gives up, and the caller reads the file the exact way, whenever it could differ:
 * on any `js-yaml` error (syntax, duplicate key, tab, unknown tag), on a `%` directive (a
 * `%YAML 1.1` would change how scalars read), on an integer that a number cannot hold exactly,
 * and when aliases expand past the budget or values nest too deep. The loader also re-reads
 * exactly any file whose documents have a problem, so every message comes from the exact path.
 */
export async function parseYamlFast(
  source: ManifestText,
  parsers: FullParsers | undefined,
  pacer: Pacer,
): Promise<YamlDocument[] | undefined | typeof needsParsers> {
  if (/^%/m.test(source.text)) return undefined;
  // The plain subset first (`yaml-subset.ts`): fresh values, nothing shared, within the budget;
  // the event loop may turn between its documents.
  const subset = await parseYamlSubsetPaced(source.text, pacer);
  if (!subset && !parsers) return needsParsers;
  const values = subset?.values ?? (parsers && loadWithJsYaml(parsers.jsYaml, source.text));
  if (!values) return undefined;
  let maps: Array<ReadonlyMap<string, ValuePosition>> | undefined;
  let lines: LineStarts | undefined;
  const positionsOf = (index: number, read: number | undefined) => () => {
    if (subset && read !== undefined) {
      // Places in a file the subset reader answered come from that reader again, recording offsets
      // this time, for the one document asked about (from where the first read saw it start).
      // Recording them on the first read cost more over 5,000 resources (~50 ms, mostly garbage)
      // than the documents a message or a lint finding asks about.
      const offsets = documentOffsets(source.text, subset.starts, read);
      return offsets
        ? offsetPositions(offsets, (lines ??= new LineStarts(source.text)))
        : new Map<string, ValuePosition>();
    }
    // Read by js-yaml, so the parsers are loaded.
    maps ??= (parsers as FullParsers).exact.documentPositions(source.text);
    return maps[index] ?? new Map<string, ValuePosition>();
  };
  const documents: YamlDocument[] = [];
  for (const [read, value] of values.entries()) {
    if (value === null || value === undefined) continue;
    const index = documents.length;
    documents.push({
      file: source.file,
      absolute: source.absolute,
      index,
      value,
      positions: new Positions(positionsOf(index, subset ? read : undefined)),
    });
  }
  return documents;
}

/** Line and column (1-based) of character offsets into one file. */
export class LineStarts {
  readonly #starts: number[] = [0];

  constructor(text: string) {
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) this.#starts.push(at + 1);
  }

  at(offset: number): LineColumn {
    const starts = this.#starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (starts[low] as number) + 1 };
  }
}

/** The positions the subset reader recorded for one document, as the exact walk would give them. */
export function offsetPositions(offsets: SubsetOffsets, lines: LineStarts): Map<string, ValuePosition> {
  const positions = new Map<string, ValuePosition>();
  for (let index = 0; index < offsets.pointers.length; index++) {
    const key = offsets.keys[index] as number;
    const value = lines.at(offsets.values[index] as number);
    positions.set(offsets.pointers[index] as string, key >= 0 ? { value, key: lines.at(key) } : { value });
  }
  return positions;
}

/** Values read by `js-yaml`, copied within the budget; undefined where the exact path must read the file. */
function loadWithJsYaml(jsYaml: FullParsers['jsYaml'], text: string): unknown[] | undefined {
  let raws: unknown[];
  try {
    raws = jsYaml.loadAll(text, null, { schema: jsYaml.CORE_SCHEMA, json: false });
  } catch {
    return undefined;
  }
  const values: unknown[] = [];
  for (const raw of raws) {
    const value = copyWithin(raw, 0, { values: 0 });
    if (value === unsupported) return undefined;
    values.push(value);
  }
  return values;
}

const unsupported = Symbol('unsupported');

/**
 * A fresh copy of a `js-yaml` value (which shares the objects an alias names), counting every
 * value as the exact path does, so an alias bomb costs no more here than there.
 */
function copyWithin(value: unknown, depth: number, budget: { values: number }): unknown {
  if (depth > maxDepth || ++budget.values > maxValuesPerDocument) return unsupported;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value) ? unsupported : value;
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) {
      const copy = copyWithin(item, depth + 1, budget);
      if (copy === unsupported) return unsupported;
      out.push(copy);
    }
    return out;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const copy = copyWithin((value as Record<string, unknown>)[key], depth + 1, budget);
      if (copy === unsupported) return unsupported;
      // `__proto__` as a key must stay an ordinary field, not reach the prototype.
      if (key === '__proto__')
        Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
      else out[key] = copy;
    }
    return out;
  }
  return unsupported;
}
