import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePage } from './examples.js';
import { runPage } from './run-page.js';

// Every example of README.md and docs/*.md, run as docs/contributing.md ("Docs that run") describes: the
// pages one after another (each shares one shell, one folder and any emulator it starts among its examples).

const repository = path.resolve(import.meta.dirname, '../..');
const allPages = [
  'README.md',
  ...readdirSync(path.join(repository, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
// DOCS_PAGES=docs/a.md,docs/b.md runs only those pages (while writing one).
const chosen = process.env.DOCS_PAGES?.split(',').filter((name) => name !== '');
const pages = chosen?.length ? allPages.filter((name) => chosen.includes(name)) : allPages;

describe('the examples of the docs', () => {
  for (const name of pages) {
    it(`${name} runs as shown`, { timeout: 300_000 }, async () => {
      const page = parsePage(readFileSync(path.join(repository, name), 'utf8'));
      expect(page.problems.map((problem) => `${name}:${problem}`)).toEqual([]);
      const failures = await runPage(page, { name });
      if (failures.length > 0) throw new Error(`\n${failures.join('\n\n')}`);
    });
  }
});
