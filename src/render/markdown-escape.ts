// Escapes for text that lands in markdown (pull-request comments, job summaries, issues). Names,
// messages and reasons from the live account or from a report file are untrusted: left raw, a name
// such as `<a href=…>Approve</a>` or `[Approve](https://…)` would render as a link, an image or a
// table break in the reviewer's comment. Every markdown renderer passes such text through here.
import { printable } from '../util/printable.js';

/** HTML text (inside `<summary>`, `<code>`): the characters that could open a tag or an entity, as entities. */
export function escapeHtml(text: string): string {
  return withoutMentions(
    printable(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'),
  );
}

/**
 * `@team` and `@org/team` in a comment notify people: in text from the account or a CI variable a
 * zero-width space after the `@` keeps it readable and keeps it from pinging anyone. An `@` after a
 * letter or digit (`ops@example.com`) is no mention and stays as it is.
 */
function withoutMentions(text: string): string {
  return text.replace(/(^|[^\w])@(?=[A-Za-z0-9])/g, '$1@&#8203;');
}

/**
 * Inline markdown text (a list item, a table cell, a quote): HTML as entities, and the characters
 * that give markdown a meaning (emphasis, links and images, code, table cells, strike-through; a
 * heading, quote or list at the start) behind a backslash, which renders as the character itself.
 */
export function escapeMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/([\\`*_[\]|~])/g, '\\$1')
    .replace(/^[#>+=-]/, '\\$&')
    .replace(/^(\d+)([.)])/, '$1\\$2');
}

/** An inline code span: nothing inside is interpreted, but a backtick would end it and a pipe a table cell. */
export function markdownCode(text: string): string {
  return `\`${printable(text).replace(/`/g, "'").replace(/\|/g, '\\|')}\``;
}
