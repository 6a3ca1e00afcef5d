import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorForCli, repository, runCli, type EmulatorForCli } from './cli.js';
import { browserAvailable, chromiumArgs, chromiumPath } from '../support/chromium.js';

// The markdown plan of the examples carries a mermaid graph; mermaid itself parses and draws it in
// Chromium (Debian's chromium package, or CHROMIUM_PATH), loaded from the mermaid package on disk.
const haveChromium = browserAvailable('plan-graph');

let harness: EmulatorForCli;
let folder: string;
let browser: Browser | undefined;
let markdown = '';
let mermaidText = '';

async function demoSecrets(): Promise<Record<string, string>> {
  const text = await readFile(path.join(repository, 'examples/demo-secrets.env'), 'utf8');
  return Object.fromEntries(
    [...text.matchAll(/^([A-Z_]+)='([^']*)'$/gm)].map((match) => [match[1] as string, match[2] as string]),
  );
}

beforeAll(async () => {
  harness = await emulatorForCli({ registryDelayMs: 60_000 });
  folder = await mkdtemp(path.join(tmpdir(), 'telform-e2e-graph-'));
  const env = { ...harness.env, ...(await demoSecrets()) };
  const plan = await runCli(
    ['plan', '-f', path.join(repository, 'examples'), '--state', 'graph.json', '--format', 'markdown'],
    { cwd: folder, env },
  );
  expect(plan.code).toBe(0);
  markdown = plan.stdout;
  mermaidText = /```mermaid\n([\s\S]*?)```/.exec(markdown)?.[1] ?? '';
  if (haveChromium) browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness.emulator.close();
  await rm(folder, { recursive: true, force: true });
});

describe('the markdown plan graph of the examples', () => {
  it('draws every change, its dependencies and a class per action', () => {
    expect(markdown).toContain('#### Order of changes\n\n```mermaid\nflowchart LR\n');
    expect(mermaidText).toMatch(/^ {2}c\d+\["Trunk\/pbx-outbound<br\/>create"\]$/m);
    expect(mermaidText).toMatch(/^ {2}classDef act_create fill:#d4f7d4,stroke:#2e7d32,color:#000$/m);
    expect(mermaidText).toMatch(/^ {2}classDef act_wait /m);
    // Each campaign waits for its brand: an arrow from the brand's node to the campaign's.
    const id = (address: string) =>
      new RegExp(`^ {2}(c\\d+)\\["${address.replace('/', '\\/')}<br\\/>`, 'm').exec(mermaidText)?.[1];
    expect(mermaidText).toContain(`  ${id('Brand/acme-retail')} --> ${id('Campaign/acme-orders')}\n`);
  });

  it.skipIf(!haveChromium)('is parsed and rendered by mermaid in Chromium', async () => {
    const page = await (browser as Browser).newPage();
    try {
      await page.setContent('<!doctype html><html><body><div id="out"></div></body></html>');
      await page.addScriptTag({ path: path.join(repository, 'node_modules/mermaid/dist/mermaid.min.js') });
      const result = await page.evaluate(async (text) => {
        const api = (
          globalThis as unknown as {
            mermaid: {
              initialize(options: object): void;
              parse(text: string): Promise<unknown>;
              render(id: string, text: string): Promise<{ svg: string }>;
            };
          }
        ).mermaid;
        api.initialize({ startOnLoad: false, securityLevel: 'strict' });
        const parsed = await api.parse(text);
        const { svg } = await api.render('plan-graph', text);
        // The test is compiled without the DOM's types: the page's document, as far as it is used here.
        type Element = { innerHTML: string; querySelectorAll(selector: string): { length: number } };
        const out = (
          globalThis as unknown as { document: { getElementById(id: string): Element } }
        ).document.getElementById('out');
        out.innerHTML = svg;
        return {
          parsed: Boolean(parsed),
          nodes: out.querySelectorAll('g.node').length,
          edges: out.querySelectorAll('path.flowchart-link').length,
        };
      }, mermaidText);
      const nodes = (mermaidText.match(/^ {2}c\d+\[/gm) ?? []).length;
      const edges = (mermaidText.match(/ --> /g) ?? []).length;
      expect(result).toEqual({ parsed: true, nodes, edges });
      expect(nodes).toBeGreaterThan(20);
    } finally {
      await page.close();
    }
  });

  it('renders the same plan as dot with --format dot', async () => {
    const env = { ...harness.env, ...(await demoSecrets()) };
    const dot = await runCli(
      ['plan', '-f', path.join(repository, 'examples'), '--state', 'graph.json', '--format', 'dot'],
      { cwd: folder, env },
    );
    expect(dot.stdout).toMatch(/^digraph plan \{\n {2}rankdir=LR;\n/);
    expect(dot.stdout).toMatch(
      /^ {2}c\d+ \[label="Trunk\/pbx-outbound\\ncreate", fillcolor="#d4f7d4", color="#2e7d32"\];$/m,
    );
    expect(dot.stdout.trimEnd().endsWith('}')).toBe(true);
  });
});
