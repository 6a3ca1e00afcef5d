// Which reports each output format renders, known without loading a renderer: a command's
// `--format` choices, and the refusal of a format that cannot render its report, are decided while
// its arguments parse, before the engine and the renderers load (`plan` starts its reads then).
// render/index.ts holds the renderers, and its types check that each format implements exactly
// the reports listed here.

export type Report =
  | 'plan'
  | 'drift'
  | 'apply'
  | 'accounts'
  | 'validation'
  | 'accountsValidation'
  | 'history'
  | 'rehearsal'
  | 'stateList'
  | 'stateEntry'
  | 'imported'
  | 'kindExplanation'
  | 'fieldExplanation'
  | 'test';

export type Format = 'text' | 'json' | 'markdown' | 'mermaid' | 'dot' | 'github' | 'gitlab' | 'junit';

/** The reports of each format, in the order `--help` lists formats. */
export const formatReports = {
  text: [
    'plan',
    'drift',
    'apply',
    'accounts',
    'validation',
    'accountsValidation',
    'history',
    'rehearsal',
    'test',
    'stateList',
    'imported',
    'kindExplanation',
    'fieldExplanation',
  ],
  json: [
    'plan',
    'drift',
    'apply',
    'accounts',
    'validation',
    'accountsValidation',
    'history',
    'stateList',
    'stateEntry',
  ],
  markdown: ['plan', 'drift', 'accounts', 'history', 'rehearsal'],
  mermaid: ['plan', 'drift'],
  dot: ['plan', 'drift'],
  github: ['plan', 'drift', 'accounts', 'validation', 'accountsValidation'],
  gitlab: ['plan', 'drift', 'accounts', 'validation', 'accountsValidation'],
  junit: ['test'],
} as const satisfies Record<Format, readonly Report[]>;

/** Each report's name in a sentence (`--format dot cannot render an accounts report`). */
export const reportNames: Record<Report, string> = {
  plan: 'a plan',
  drift: 'a drift report',
  apply: "one account's apply result",
  accounts: 'an accounts report',
  validation: 'a validation report',
  accountsValidation: 'the validation of an accounts file',
  history: 'a history',
  rehearsal: 'a rehearsal',
  test: 'a test report',
  stateList: 'a state listing',
  stateEntry: "a state's entry",
  imported: 'an import report',
  kindExplanation: "a kind's explanation",
  fieldExplanation: "a field's explanation",
};

const formats = Object.keys(formatReports) as Format[];

function renders(format: Format, report: Report): boolean {
  return (formatReports[format] as readonly Report[]).includes(report);
}

/** The formats that render every one of `reports`, in the table's order. */
export function formatsRendering(...reports: Report[]): Format[] {
  return formats.filter((format) => reports.every((report) => renders(format, report)));
}

/** The formats that render any of `reports`: a command's `--format` choices. */
export function formatChoices(...reports: Report[]): Format[] {
  return formats.filter((format) => reports.some((report) => renders(format, report)));
}

/** `text, json or markdown` */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** Why `format` cannot render `report`, naming the formats that can; undefined when it can. */
export function formatRefusal(format: Format, report: Report): string | undefined {
  if (renders(format, report)) return undefined;
  return `--format ${format} cannot render ${reportNames[report]}; choose ${orList(formatsRendering(report))}`;
}
