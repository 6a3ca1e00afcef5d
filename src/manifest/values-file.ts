// `--values FILE` and `--value NAME=V` read as YAML: apart from values.ts so the `yaml` package
// loads only for a run that gives values on the command line.
import { LineCounter, isMap, isNode, isScalar, parseDocument, parse as parseYaml, visit, type Document } from 'yaml';
import type { SourcePlace } from '../util/errors.js';
import { TelformError } from '../util/errors.js';
import { valueNamePattern, valueShapeProblem, valuesFromYaml, type GivenValue } from './values.js';

/** `--values FILE`: a YAML mapping of names to values. */
export function parseValuesFile(text: string, file: string): Map<string, GivenValue> {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): SourcePlace => {
    const { line, col } = lines.linePos(offset);
    return { file, line, column: col };
  };
  const failure = (message: string, place: SourcePlace) =>
    new TelformError('values_file', message, { place: { source: place } });
  const yamlError = document.errors[0];
  if (yamlError)
    throw failure(`the values file is not valid YAML: ${yamlError.message.split('\n')[0]}`, at(yamlError.pos[0]));
  const root = document.contents;
  if (root !== null && !isMap(root))
    throw failure(
      'the values file must be a mapping of value names to values',
      at(isNode(root) && root.range ? root.range[0] : 0),
    );
  const placeOfName = (name: string): SourcePlace => {
    const pair = isMap(root)
      ? root.items.find((item) => isScalar(item.key) && String(item.key.value) === name)
      : undefined;
    const node = pair?.value ?? pair?.key;
    return at(isNode(node) && node.range ? node.range[0] : 0);
  };
  return valuesFromYaml(plainValue(document, at, 'the values file', failure), file, 'values', placeOfName, failure);
}

/** `--value NAME=V`: V is read as YAML (`5060` a number, `[a, b]` a list; quote it to keep a string). */
export function parseValueFlag(flag: string): { name: string; value: unknown } {
  const equals = flag.indexOf('=');
  const name = equals === -1 ? flag : flag.slice(0, equals);
  if (equals === -1 || !valueNamePattern.test(name)) {
    throw new TelformError('bad_option', `--value ${flag}: expected NAME=VALUE, e.g. --value pbx_ip=203.0.113.10`);
  }
  let value: unknown;
  try {
    value = parseYaml(flag.slice(equals + 1));
  } catch (error) {
    throw new TelformError(
      'bad_option',
      `--value ${name}: not a YAML value (${(error as Error).message.split('\n')[0]})`,
    );
  }
  const shape = valueShapeProblem(value);
  if (shape) throw new TelformError('bad_option', `--value ${name}: ${shape}`);
  return { name, value };
}

/** How many copies YAML aliases may make in a values or accounts file (the `yaml` package's bound). */
const aliasBudget = 100;

/**
 * The document as plain data. Aliases (`*name`) are expanded within a budget: nested aliases that
 * would make millions of copies (an "alias bomb") are refused at the first alias, in one sentence.
 */
export function plainValue(
  document: Document,
  at: (offset: number) => SourcePlace,
  label: string,
  error: (message: string, place: SourcePlace) => TelformError,
): unknown {
  try {
    return document.toJS({ maxAliasCount: aliasBudget });
  } catch (thrown) {
    if (!(thrown instanceof ReferenceError) || !/alias/i.test(thrown.message)) throw thrown;
    let offset = 0;
    visit(document, {
      Alias(_key, node) {
        offset = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    throw error(
      `${label} expands its YAML aliases (*name) into more than ${aliasBudget} copies of what they name; write the values out instead`,
      at(offset),
    );
  }
}
