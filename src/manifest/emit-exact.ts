// The manifest writer of `emit.ts` for what its direct writer leaves: every shape and escape, through
// the `yaml` package (loaded only when a document needs it).
import { Document, isMap, isSeq, visit } from 'yaml';
import { printable } from '../util/printable.js';
import { apiVersion } from './document.js';
import { escapeRawInDoubleQuoted, needsYamlEscape } from './yaml-escape.js';

/** Through the `yaml` package: every shape, every escape (a resource as `emit.ts` takes it). */
export function emitDocumentExactly(resource: {
  kind: string;
  name: string;
  spec: Record<string, unknown>;
  comments?: readonly string[];
}): string {
  const document = new Document({
    apiVersion,
    kind: resource.kind,
    metadata: { name: resource.name },
    spec: resource.spec,
  });
  if (resource.comments && resource.comments.length > 0)
    document.commentBefore = resource.comments.map((line) => ` ${printable(line)}`).join('\n');
  flowShortLists(document.contents);
  // Live text with a bidi control or a line separator is written double-quoted, where it can be an escape.
  visit(document, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && needsYamlEscape.test(node.value)) node.type = 'QUOTE_DOUBLE';
    },
  });
  return escapeRawInDoubleQuoted(document.toString({ lineWidth: 0 }));
}

/** Short scalar lists (`ip_addresses`, `sub_usecases`) and refs read better inline. */
function flowShortLists(node: unknown): void {
  if (isMap(node)) {
    const keys = node.items.map((pair) => String((pair.key as { value?: unknown })?.value ?? ''));
    if (keys.length === 1 && keys[0] === 'ref') node.flow = true;
    for (const pair of node.items) flowShortLists(pair.value);
  } else if (isSeq(node)) {
    const scalars = node.items.every((item) => !isMap(item) && !isSeq(item));
    if (scalars && node.items.length <= 8) node.flow = true;
    for (const item of node.items) flowShortLists(item);
  }
}
