import { describe, expect, it } from 'vitest';
import {
  formatChoices,
  formatRefusal,
  formatsRendering,
  rendererFor,
  renderers,
  type Format,
  type Report,
  type Renderer,
  type RenderOptions,
} from '../../src/render/index.js';
import type { AccountsReport } from '../../src/render/accounts-report.js';
import { reportedPlan } from '../../src/render/accounts-report.js';
import type { Rehearsal } from '../../src/render/rehearsal-report.js';
import { TelformError } from '../../src/util/errors.js';
import type { Ledger } from '../../src/state/ledger.js';
import { explainField, explainKind, type FieldExplanation } from '../../src/resources/explain.js';
import { catalog } from '../../src/resources/index.js';
import type { Kind } from '../../src/resources/kind.js';
import { change, plan } from '../support/plan.js';

// The registry of output formats: which format renders which report is a table the commands' --format
// choices and refusals come from. Every format × report either renders or is refused by name.

const options: RenderOptions = { color: false };
const onePlan = plan([change({ address: 'Trunk/pbx-out', action: 'create' })]);
const finding = {
  source: 'lint' as const,
  rule: 'sample-names-brand',
  severity: 'warning' as const,
  address: 'Campaign/promo',
  message: 'sample1 does not name the brand',
  field: 'spec.sample1',
  source_place: { file: 'campaigns.yaml', line: 12, column: 5 },
};
const accountsReport: AccountsReport = {
  format_version: 1,
  command: 'plan',
  exit_code: 1,
  accounts: [
    {
      name: 'acme',
      exit_code: 0,
      status: 'changes',
      summary: 'Plan: 1 to create.',
      plan: reportedPlan(plan([], { findings: [finding] })),
    },
    {
      name: 'globex',
      exit_code: 1,
      status: 'error',
      summary: 'error: no such account',
      error: { code: 'api_error', message: 'no such account' },
    },
  ],
};
const aclKind = catalog.get('TrunkIpAcl') as Kind;
const ledger = {
  format_version: 1,
  lineage: 'lineage-1',
  endpoint: 'local',
  account: 'MAEMULATOR0000000001',
  serial: 3,
  resources: {
    'TrunkIpAcl/office': {
      kind: 'TrunkIpAcl',
      name: 'office',
      id: 'a1',
      applied_spec: {},
      secrets: {},
      updated_at: '2026-11-25T00:00:00.000Z',
    },
  },
} as Ledger;
const summary = { problems: [], errorCount: 0, warningCount: 0, resourceCount: 1, files: ['m.yaml'] };
const rehearsal: Rehearsal = {
  plan: onePlan,
  refused: [],
  pending: [],
  requests: { sent: 1, estimated: 1 },
  after: [],
  traffic: undefined,
  takenAt: '2026-11-25T00:00:00Z',
  clean: true,
};

/** Renders `report` with `render`, from the sample above. */
function renderSample(report: Report, format: Format): string {
  switch (report) {
    case 'plan':
      return rendererFor(format, 'plan')(onePlan, options);
    case 'drift':
      return rendererFor(format, 'drift')(
        { status: 'pending', drifted: [], pending: ['Trunk/pbx-out'], notes: [] },
        onePlan,
        options,
      );
    case 'apply':
      return rendererFor(
        format,
        'apply',
      )({ name: 'acme', exit_code: 0, status: 'applied', summary: 'Apply complete: 1 created.' });
    case 'accounts':
      return rendererFor(format, 'accounts')(accountsReport);
    case 'validation':
      return rendererFor(format, 'validation')(summary);
    case 'accountsValidation':
      return rendererFor(format, 'accountsValidation')([{ name: 'acme', summary }]);
    case 'history':
      return rendererFor(format, 'history')([{ location: 'telform.state.json', records: [] }], { accounts: false });
    case 'rehearsal':
      return rendererFor(format, 'rehearsal')(rehearsal);
    case 'test':
      return rendererFor(format, 'test')({ files: [] });
    case 'imported':
      return rendererFor(format, 'imported')({ imported: [], files: 0, out: 'imported/' });
    case 'kindExplanation':
      return rendererFor(format, 'kindExplanation')(explainKind(aclKind));
    case 'fieldExplanation':
      return rendererFor(format, 'fieldExplanation')(explainField(aclKind, 'ip_addresses') as FieldExplanation);
    case 'stateList':
      return rendererFor(format, 'stateList')(ledger);
    case 'stateEntry':
      return rendererFor(format, 'stateEntry')(
        'TrunkIpAcl/office',
        ledger.resources['TrunkIpAcl/office'] as Ledger['resources'][string],
      );
    default: {
      const never: never = report;
      return never;
    }
  }
}

const formats = Object.keys(renderers) as Format[];
const reports: Report[] = [
  'plan',
  'drift',
  'apply',
  'accounts',
  'validation',
  'accountsValidation',
  'history',
  'rehearsal',
  'stateList',
  'stateEntry',
  'imported',
  'kindExplanation',
  'fieldExplanation',
  'test',
];

/** What each format renders, written out: a change to the registry changes this on purpose. */
const expected: Record<Report, Format[]> = {
  plan: ['text', 'json', 'markdown', 'mermaid', 'dot', 'github', 'gitlab'],
  drift: ['text', 'json', 'markdown', 'mermaid', 'dot', 'github', 'gitlab'],
  apply: ['text', 'json'],
  accounts: ['text', 'json', 'markdown', 'github', 'gitlab'],
  validation: ['text', 'json', 'github', 'gitlab'],
  accountsValidation: ['text', 'json', 'github', 'gitlab'],
  history: ['text', 'json', 'markdown'],
  rehearsal: ['text', 'markdown'],
  test: ['text', 'junit'],
  stateList: ['text', 'json'],
  stateEntry: ['json'],
  imported: ['text'],
  kindExplanation: ['text'],
  fieldExplanation: ['text'],
};

describe('the renderer registry', () => {
  it('has one renderer per format', () => {
    expect(formats).toEqual(['text', 'json', 'markdown', 'mermaid', 'dot', 'github', 'gitlab', 'junit']);
  });

  for (const report of reports) {
    for (const format of formats) {
      it(`${format} × ${report}: ${expected[report].includes(format) ? 'renders' : 'is refused by name'}`, () => {
        if (expected[report].includes(format)) {
          expect(formatRefusal(format, report)).toBeUndefined();
          expect(renderSample(report, format).length).toBeGreaterThan(0);
          return;
        }
        const refusal = `--format ${format} cannot render ${sentenceName[report]}; choose ${orList(expected[report])}`;
        expect(formatRefusal(format, report)).toBe(refusal);
        expect(() => renderSample(report, format)).toThrow(new TelformError('bad_option', refusal));
      });
    }
    it(`lists the formats of ${report}`, () => {
      expect(formatsRendering(report)).toEqual(expected[report]);
    });
  }

  it('gives each command its --format choices: the formats of any report it prints', () => {
    expect(formatChoices('plan', 'accounts')).toEqual([
      'text',
      'json',
      'markdown',
      'mermaid',
      'dot',
      'github',
      'gitlab',
    ]);
    expect(formatChoices('apply', 'accounts')).toEqual(['text', 'json', 'markdown', 'github', 'gitlab']);
    expect(formatChoices('accounts')).toEqual(['text', 'json', 'markdown', 'github', 'gitlab']);
    expect(formatChoices('validation', 'accountsValidation')).toEqual(['text', 'json', 'github', 'gitlab']);
    expect(formatChoices('history')).toEqual(['text', 'json', 'markdown']);
    expect(formatChoices('test')).toEqual(['text', 'junit']);
  });

  it('says the refusal of a graph of an accounts report in one sentence', () => {
    expect(formatRefusal('mermaid', 'accounts')).toBe(
      '--format mermaid cannot render an accounts report; choose text, json, markdown, github or gitlab',
    );
  });

  it('keeps the members a format has in its type (a missing one does not compile)', () => {
    const text: Renderer = renderers.text;
    // @ts-expect-error: mermaid draws plans; it has no accounts report
    const mermaidAccounts: Renderer['accounts'] = renderers.mermaid.accounts;
    expect(Object.keys(text).sort()).toEqual(reports.filter((report) => expected[report].includes('text')).sort());
    expect(mermaidAccounts).toBeUndefined();
  });
});

describe('an accounts report as CI annotations', () => {
  it("annotates each account's findings and errors on GitHub, naming the account, then prints the headline", () => {
    expect(rendererFor('github', 'accounts')(accountsReport)).toBe(
      [
        '::warning file=campaigns.yaml,line=12,col=5,title=telform lint::[account acme] Campaign/promo  spec.sample1: sample1 does not name the brand (lint sample-names-brand)',
        '::error title=telform account::[account globex] api_error: no such account',
        'telform plan: 2 accounts: 1 changes, 1 error. Exit code 1.',
        '  acme: changes: Plan: 1 to create.',
        '  globex: error: error: no such account',
        '',
      ].join('\n'),
    );
  });

  it('writes the same annotations as a GitLab code-quality report', () => {
    const issues = JSON.parse(rendererFor('gitlab', 'accounts')(accountsReport)) as Array<{
      description: string;
      check_name: string;
      severity: string;
      location: unknown;
    }>;
    expect(
      issues.map(({ description, check_name, severity, location }) => ({
        description,
        check_name,
        severity,
        location,
      })),
    ).toEqual([
      {
        description:
          '[account acme] Campaign/promo  spec.sample1: sample1 does not name the brand (lint sample-names-brand)',
        check_name: 'telform lint',
        severity: 'minor',
        location: { path: 'campaigns.yaml', lines: { begin: 12 } },
      },
      {
        description: '[account globex] api_error: no such account',
        check_name: 'telform account',
        severity: 'major',
        location: { path: '', lines: { begin: 1 } },
      },
    ]);
  });

  it('escapes an account name from a report file in the workflow command', () => {
    const hostile: AccountsReport = {
      ...accountsReport,
      accounts: [
        {
          name: 'evil\n::error::x\u202e',
          exit_code: 1,
          status: 'error',
          summary: 'boom',
          error: { code: 'api_error', message: 'boom' },
        },
      ],
    };
    const output = rendererFor('github', 'accounts')(hostile);
    expect(output.split('\n')[0]).toBe(
      '::error title=telform account::[account evil\\n::error::x\\u202e] api_error: boom',
    );
  });
});

const sentenceName: Record<Report, string> = {
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

function orList(items: readonly string[]): string {
  return items.length === 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}
