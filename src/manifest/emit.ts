import { Document, isMap, isSeq, visit } from 'yaml';
import { printable } from '../util/printable.js';
import { apiVersion } from './document.js';
import { escapeRawInDoubleQuoted, needsYamlEscape } from './yaml-escape.js';

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

export function emitManifest(resources: readonly EmittedResource[], schemaPath: string): string {
  const header = `# yaml-language-server: $schema=${schemaPath}\n`;
  const documents = resources.map((resource) => {
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
  });
  return `${header}${documents.join('---\n')}`;
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
