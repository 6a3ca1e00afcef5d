import { describe, expect, it } from 'vitest';
import { maxFileBytes } from '../../src/manifest/files.js';
import { doc, lines, loadText } from './helpers.js';

/**
 * Bad inputs too big or too binary to commit: generated at run time into a temp folder.
 * Each gives one error at its place, never a stack trace.
 */
describe('generated bad inputs', () => {
  it('refuses a 10 MB file before parsing it', async () => {
    const resource = doc('TrunkIpAcl', 'office', 'ip_addresses: [203.0.113.10]');
    const text = `${resource}---\n`.repeat(Math.ceil((10 * 1024 * 1024) / (resource.length + 4)));
    expect(text.length).toBeGreaterThan(maxFileBytes);
    const result = await loadText({ 'big.yaml': text });
    expect(lines(result)).toEqual([
      `big.yaml:1:1  the file is 10.0 MB, over the 8.0 MB limit for one manifest file; split it into several files`,
    ]);
  });

  it('refuses binary garbage at its first byte that is not UTF-8', async () => {
    // A deterministic pseudo-random byte stream (a linear congruential generator).
    const bytes = Buffer.alloc(4096);
    let state = 12345;
    for (let index = 0; index < bytes.length; index++) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      bytes[index] = state >> 23;
    }
    const text = Buffer.concat([Buffer.from('apiVersion: telform/v1\nkind: '), bytes]);
    const result = await loadText({ 'garbage.yaml': text });
    const firstBad = lines(result);
    expect(firstBad).toHaveLength(1);
    expect(firstBad[0]).toMatch(
      /^garbage\.yaml:2:\d+  the file (is not UTF-8 text|holds the control character U\+[0-9A-F]{4}, which YAML does not allow) \(a binary file\?\)$/,
    );
  });

  it('places the first invalid UTF-8 byte', async () => {
    const text = Buffer.concat([
      Buffer.from('apiVersion: telform/v1\nkind: Tr'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('unk\n'),
    ]);
    const result = await loadText({ 'latin.yaml': text });
    expect(lines(result)).toEqual(['latin.yaml:2:9  the file is not UTF-8 text (a binary file?)']);
  });

  it('refuses 100,000 nested flow sequences without exhausting the stack', async () => {
    const text = `apiVersion: telform/v1\nkind: TrunkIpAcl\nspec:\n  ip_addresses: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    const result = await loadText({ 'deep.yaml': text });
    expect(lines(result)).toEqual(['deep.yaml:4:81  values are nested more than 64 levels deep']);
  });

  it('refuses a billion-laughs alias bomb in flow style at the alias that exceeds the budget', async () => {
    let text = 'a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    for (let level = 1; level <= 9; level++)
      text += `a${level}: &a${level} [${Array(10)
        .fill(`*a${level - 1}`)
        .join(', ')}]\n`;
    const result = await loadText({ 'laughs.yaml': text });
    expect(lines(result)).toEqual([
      'laughs.yaml:5:45  the document expands to more than 100000 values (an alias bomb?)',
    ]);
  });

  it('accepts aliases within the budget, with the values they name', async () => {
    const text = `apiVersion: telform/v1\nkind: TrunkIpAcl\nmetadata:\n  name: office\nspec:\n  ip_addresses: &office [203.0.113.10]\n---\n${doc('TrunkIpAcl', 'backup', 'ip_addresses: [203.0.113.11]')}`;
    const result = await loadText({ 'aliases.yaml': text });
    expect(lines(result)).toEqual([]);
  });
});
