// Text into HTML for the status page. Everything the page shows that came from the live account or
// the registry (names, reasons, error messages) is untrusted: control and bidirectional-override
// characters — which can make a line read other than it is — become visible escapes (the one
// helper every renderer uses), then HTML's special characters become entities.
import { printable } from '../util/printable.js';

export function escapeHtml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (character) => entities[character] ?? character);
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A template tag whose interpolations are escaped, except values already made by `html` (`Html`). */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = string | number | Html | readonly Html[] | undefined | null | false;

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? '';
  parts.forEach((part, index) => {
    out += render(part) + (strings[index + 1] ?? '');
  });
  return new Html(out);
}

function render(part: Part): string {
  if (part === undefined || part === null || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map((each: Html) => each.text).join('');
  return escapeHtml(String(part));
}
