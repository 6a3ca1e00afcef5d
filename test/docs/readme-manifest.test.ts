import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/load.js';

/** The first fenced yaml block under the heading `title` of `text`. */
function firstYamlBlock(text: string, title: string): string {
  const start = text.indexOf(`\n${title}\n`);
  if (start < 0) throw new Error(`no "${title}" heading`);
  const match = /```yaml\n([\s\S]*?)```/.exec(text.slice(start));
  if (!match?.[1]) throw new Error(`no yaml block under "${title}"`);
  return match[1];
}

describe("the README's manifest", () => {
  it('validates as shown: every reference names a resource it defines', async () => {
    const manifest = firstYamlBlock(await readFile('README.md', 'utf8'), '## A manifest');
    const folder = await mkdtemp(path.join(tmpdir(), 'telform-readme-'));
    await writeFile(path.join(folder, 'readme.yaml'), manifest);
    const result = await loadManifests(['readme.yaml'], { cwd: folder, env: {} });
    expect(result.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(result.model.resources.map((resource) => `${resource.kind}/${resource.name}`)).toEqual([
      'TrunkIpAcl/pbx-office',
      'TrunkCredential/pbx-trunk-login',
      'Trunk/pbx-outbound',
    ]);
  });
});
