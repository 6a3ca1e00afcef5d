import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const src = path.resolve(import.meta.dirname, '../../src');

/**
 * What loading a module loads before it runs: its static value imports, followed through the
 * project's files (type-only imports are erased; `import('…')` waits until it is called).
 */
function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>([entry]);
  const packages = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'|^import\s+'([^']+)'/gms)) {
      const specifier = (match[1] ?? match[2]) as string;
      if (!specifier.startsWith('.')) {
        packages.add(specifier.startsWith('node:') ? specifier : (specifier.split('/')[0] as string));
        continue;
      }
      const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (existsSync(target) && !files.has(target)) {
        files.add(target);
        queue.push(target);
      }
    }
  }
  return { files, packages };
}

const underEmulator = (files: Set<string>) =>
  [...files].filter((file) => file.startsWith(path.join(src, 'emulator'))).map((file) => path.relative(src, file));

describe('start-up: what a command loads before it runs', () => {
  it.each(['plan', 'apply', 'drift', 'import', 'validate'])(
    '%s loads neither the emulator nor the PostgreSQL driver',
    (command) => {
      const { files, packages } = staticClosure(path.join(src, 'cli', `${command}.ts`));
      expect(underEmulator(files)).toEqual([]);
      expect([...packages].filter((name) => name === 'pg')).toEqual([]);
    },
  );

  // `import` writes manifests with the `yaml` package: it needs it from the start.
  it.each([
    ['plan', ['yaml', 'js-yaml', '@marcbachmann']],
    ['apply', ['yaml', 'js-yaml', '@marcbachmann']],
    ['drift', ['yaml', 'js-yaml', '@marcbachmann']],
    ['validate', ['yaml', 'js-yaml', '@marcbachmann']],
    ['import', ['@marcbachmann']],
  ])('%s loads no YAML library or CEL until a file, a values flag or a policy needs it', (command, lazy) => {
    const { packages } = staticClosure(path.join(src, 'cli', `${command}.ts`));
    expect([...packages].filter((name) => lazy.includes(name))).toEqual([]);
  });

  it('the program itself loads no command', () => {
    const { files } = staticClosure(path.join(src, 'cli', 'main.ts'));
    expect(
      [...files]
        .map((file) => path.relative(src, file))
        .filter((file) => /^cli\/(plan|apply|drift|import|validate|emulator|state)\.ts$/.test(file)),
    ).toEqual([]);
  });
});
