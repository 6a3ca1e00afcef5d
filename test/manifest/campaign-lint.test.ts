import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lintCampaigns } from '../../src/manifest/campaign-lint.js';
import { campaignLintRules, namesBrand } from '../../src/manifest/campaign-lint-rules.js';
import { loadManifests } from '../../src/manifest/load.js';
import { formatProblem } from '../../src/manifest/report.js';

// The 10DLC lint over a corpus of campaigns: each good one has no finding, each bad one exactly the
// finding of the rule in its name; the examples have none.
const repository = path.resolve(import.meta.dirname, '../..');
const corpus = path.join(import.meta.dirname, 'campaign-lint');
const cases = (await readdir(corpus)).filter((file) => file !== 'brand.yaml' && file.endsWith('.yaml')).sort();

async function lintFile(file: string) {
  const result = await loadManifests([path.join(corpus, 'brand.yaml'), path.join(corpus, file)], {
    cwd: repository,
    env: {},
  });
  expect(result.problems.filter((problem) => problem.severity === 'error').map(formatProblem)).toEqual([]);
  return lintCampaigns(result.model.resources);
}

describe('10DLC lint corpus', () => {
  it('holds at least 30 campaigns, and a bad one for every rule', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    for (const rule of campaignLintRules) expect(cases, rule.id).toContain(`bad-${rule.id}.yaml`);
  });

  it.each(cases)('%s', async (file) => {
    const findings = await lintFile(file);
    const rule = /^bad-(.+?)(?:-\d+)?\.yaml$/.exec(file)?.[1];
    if (rule === undefined) {
      expect(file).toMatch(/^good-/);
      expect(findings).toEqual([]);
      return;
    }
    expect([...new Set(findings.map((finding) => finding.rule))]).toEqual([rule]);
    const definition = campaignLintRules.find((candidate) => candidate.id === rule);
    for (const finding of findings) {
      expect(finding).toMatchObject({
        source: 'lint',
        severity: definition?.severity,
        address: `Campaign/${file.replace(/\.yaml$/, '')}`,
        reference: definition?.source,
      });
      // Placed on the field (or where it would be written), in the case's own file.
      expect(finding.source_place?.file).toBe(path.join('test/manifest/campaign-lint', file));
      expect(finding.source_place?.line).toBeGreaterThan(1);
    }
  });

  it('places a finding on its field, with a message that names the brand', async () => {
    const [finding] = await lintFile('bad-sample-names-brand.yaml');
    expect(finding).toEqual({
      source: 'lint',
      rule: 'sample-names-brand',
      severity: 'error',
      address: 'Campaign/bad-sample-names-brand',
      message:
        'the sample does not name the brand ("Northwind Books" or "Northwind Books LLC"); recipients must be able to tell who is writing',
      field: 'spec.sample2',
      source_place: { file: 'test/manifest/campaign-lint/bad-sample-names-brand.yaml', line: 12, column: 12 },
      reference:
        'The Campaign Registry: campaign vetting guidance; CTIA Messaging Principles and Best Practices (message sender identification)',
    });
  });

  it('finds nothing in the examples (no false positive)', async () => {
    const result = await loadManifests([path.join(repository, 'examples')], { cwd: repository, env: {} });
    expect(result.errorCount).toBe(0);
    expect(result.model.resources.filter((resource) => resource.kind === 'Campaign').length).toBeGreaterThanOrEqual(3);
    expect(lintCampaigns(result.model.resources)).toEqual([]);
  });

  it('has unique kebab-case rule ids, each with a source and a summary', () => {
    const ids = campaignLintRules.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of campaignLintRules) {
      expect(rule.id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(rule.source.length).toBeGreaterThan(0);
      expect(rule.summary.length).toBeGreaterThan(0);
    }
  });

  it('takes the brand by a whole name or its first word, as a word', () => {
    expect(namesBrand('ACME: hello', ['Acme Retail'])).toBe(true);
    expect(namesBrand('Acme Retail: hello', ['Acme Retail'])).toBe(true);
    expect(namesBrand('Acmeology: hello', ['Acme Retail'])).toBe(false);
    expect(namesBrand('Hi: hello', ['Hi Co'])).toBe(false);
    expect(namesBrand('Café Müller: hallo', ['café müller'])).toBe(true);
    expect(namesBrand('CaféMüller: hallo', ['Café'])).toBe(false);
    expect(namesBrand('x𝐀Acme: hi', ['Acme'])).toBe(false);
    expect(namesBrand('Acme2: hi', ['Acme'])).toBe(false);
    expect(namesBrand('(acme) hi', ['Acme'])).toBe(true);
  });

  it('answers as a case-insensitive Unicode word match would', () => {
    // The word regex the check once built per sample, kept here as the reference.
    const reference = (value: string, names: readonly string[]) => {
      const tokens = new Set<string>();
      for (const name of names) {
        tokens.add(name.trim());
        const first = name.trim().split(/\s+/)[0] ?? '';
        if (first.length >= 3) tokens.add(first);
      }
      const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return [...tokens].some(
        (token) =>
          token !== '' && new RegExp(`(?:^|[^\\p{L}\\p{N}])${escape(token)}(?:$|[^\\p{L}\\p{N}])`, 'iu').test(value),
      );
    };
    const piece = fc.constantFrom(
      'acme',
      'ACME',
      'Acme',
      ' ',
      ':',
      '.',
      '-',
      'é',
      'É',
      'ü',
      'x',
      '1',
      '𝐀',
      '日本',
      'Retail',
      ' Inc.',
      '(',
      ')',
      '+',
    );
    const text = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(text, fc.array(text, { minLength: 1, maxLength: 3 }), (value, names) => {
        expect(namesBrand(value, names), JSON.stringify([value, names])).toBe(reference(value, names));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('10DLC lint documentation', () => {
  it('lists every rule in docs/manifests.md with its severity', async () => {
    const docs = await readFile(path.join(repository, 'docs/manifests.md'), 'utf8');
    for (const rule of campaignLintRules)
      expect(docs).toContain(`| \`${rule.id}\` | ${rule.severity} | ${rule.summary} |`);
  });
});
