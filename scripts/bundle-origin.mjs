// Where a position in the bundled CLI (dist/cli/, see bundle.mjs) was written: the source file
// (src/… or node_modules/…) behind it, read from the chunk's source map. A CPU profile of the
// bundled CLI names only dist/cli/*.js in its frames; grouping its time by dependency or by
// telform's folders goes through this.
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Parsed source maps by chunk URL (null: the file has none). */
const maps = new Map();

/**
 * The absolute path of the source file behind a 0-based line and column of a `file:` URL, as a
 * CPU profile's call frame gives them; undefined for a file without a source map (Node's own
 * modules, a file outside the bundle) or a position the map does not cover.
 */
export function originOf(url, lineNumber, columnNumber) {
  if (!url.startsWith('file:')) return undefined;
  let map = maps.get(url);
  if (map === undefined) {
    const file = fileURLToPath(url);
    map = existsSync(`${file}.map`)
      ? { sourceMap: new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))), folder: dirname(file) }
      : null;
    maps.set(url, map);
  }
  if (map === null) return undefined;
  const entry = map.sourceMap.findEntry(lineNumber, columnNumber);
  return entry.originalSource ? resolve(map.folder, entry.originalSource) : undefined;
}
