import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { originOf } from '../../scripts/bundle-origin.mjs';

const repository = path.resolve(import.meta.dirname, '../..');
const bundle = path.join(repository, 'dist/cli');

/** The URL and the 0-based line and column of the first line of a bundled chunk containing `text`. */
function positionOf(text: string): { url: string; line: number; column: number } {
  for (const file of readdirSync(bundle).filter((name) => name.endsWith('.js'))) {
    const lines = readFileSync(path.join(bundle, file), 'utf8').split('\n');
    const line = lines.findIndex((candidate) => candidate.includes(text));
    if (line >= 0)
      return { url: pathToFileURL(path.join(bundle, file)).href, line, column: (lines[line] as string).search(/\S/) };
  }
  throw new Error(`"${text}" is in no chunk of ${bundle}: run \`npm run build\` first`);
}

describe('originOf: where a position of the bundled CLI was written', () => {
  let ownCode: { url: string; line: number; column: number };
  let dependencyCode: { url: string; line: number; column: number };
  beforeAll(() => {
    ownCode = positionOf('function planCommand(');
    dependencyCode = positionOf('_prepareUserArgs(argv, parseOptions) {');
  });

  it('names telform source file behind a chunk position', () => {
    expect(originOf(ownCode.url, ownCode.line, ownCode.column)).toBe(path.join(repository, 'src/cli/plan.ts'));
  });

  it('names the dependency file behind a chunk position', () => {
    expect(originOf(dependencyCode.url, dependencyCode.line, dependencyCode.column)).toBe(
      path.join(repository, 'node_modules/commander/lib/command.js'),
    );
  });

  it('says nothing for Node internals or a file without a source map', () => {
    expect(originOf('node:internal/modules/esm/utils', 10, 0)).toBeUndefined();
    expect(originOf(pathToFileURL(path.join(repository, 'scripts/bundle.mjs')).href, 0, 0)).toBeUndefined();
  });
});
