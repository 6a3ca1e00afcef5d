// What every YAML reader of manifests gives (the plain subset reader, js-yaml's fast path and the
// exact `yaml` walk), and the limits all of them hold a file to. Apart from the readers so that a
// command whose files need only the subset reader loads neither YAML library.
import type { Positions } from './source.js';

/** One non-empty YAML document of a file. */
export interface YamlDocument {
  file: string;
  /** Absolute path of the file, to resolve `fromFile` secrets against. */
  absolute: string;
  /** 0-based index among the file's non-empty documents. */
  index: number;
  value: unknown;
  positions: Positions;
}

/** Deeper than any manifest needs (a campaign is 3 levels deep); bounds recursion. */
export const maxDepth = 64;
/** Values one document may expand to, counting every copy an alias makes. */
export const maxValuesPerDocument = 100_000;
