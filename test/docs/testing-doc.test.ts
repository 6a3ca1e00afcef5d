import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/testing.md shows example test files whole: each block headed `# examples/tests/NAME` is that file as it is.

const repository = path.resolve(import.meta.dirname, '../..');

describe('docs/testing.md', () => {
  it('shows each example test file it names exactly as the file is', async () => {
    const text = await readFile(path.join(repository, 'docs/testing.md'), 'utf8');
    const blocks = [...text.matchAll(/```yaml\n# (examples\/tests\/[^\n]+\.tftest\.yaml)\n([\s\S]*?)```\n/g)];
    expect(blocks.map((block) => block[1])).toEqual([
      'examples/tests/campaign-declined.tftest.yaml',
      'examples/tests/policy.tftest.yaml',
      'examples/tests/start-from-snapshot.tftest.yaml',
    ]);
    for (const [, file, shown] of blocks)
      expect(shown, file).toBe(await readFile(path.join(repository, file as string), 'utf8'));
  });
});
