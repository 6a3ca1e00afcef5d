import type { KindCatalog } from '../resources/index.js';
import { catalog as defaultCatalog } from '../resources/index.js';
import { checkDocument, type DocumentResult } from './document.js';
import { displayPath, listManifestFiles, manifestRoots, readManifestFile, type ManifestText } from './files.js';
import type { ManifestModel, ManifestResource } from './model.js';
import { ProblemList, type Problem } from './problems.js';
import { checkAcrossResources, type Candidate } from './references.js';
import { checkMoves } from './moves.js';
import { checkSecrets } from './secret-check.js';
import { realRoots, type SecretEnvironment } from './secrets.js';
import { parseYamlDocuments } from './yaml.js';
import { parseYamlFast } from './yaml-fast.js';

/**
 * Manifests in, desired model and problems out: the one glue function of the manifest side.
 * It reads files and, with `checkSecrets`, secret sources;
 * it sends no request and starts nothing.
 */

export interface LoadOptions {
  /** Paths are resolved and shown relative to it. */
  cwd: string;
  /** Resolve `fromEnv` / `fromFile` secrets and apply the password rules to them. */
  checkSecrets?: boolean;
  /** Where `fromEnv` secrets are read from (default: `process.env`). */
  env?: SecretEnvironment['env'];
  /** `--allow-secret-files-outside`: `fromFile` secrets may lie outside the manifest folders. */
  allowSecretFilesOutside?: boolean;
  /** The kinds (default: every kind telform manages); tests pass their own. */
  catalog?: KindCatalog;
  /** `exact` skips the fast path (`yaml-fast.ts`); tests compare both. Default `auto`. */
  parser?: 'auto' | 'exact';
}

export interface LoadResult {
  /** Complete only when `errorCount` is 0; otherwise the resources that were valid. */
  model: ManifestModel;
  /** Every problem, sorted by file, line and column. */
  problems: Problem[];
  errorCount: number;
  warningCount: number;
  /** The folders the manifests were loaded from (absolute): where `fromFile` secrets may lie. */
  roots: string[];
}

export async function loadManifests(paths: readonly string[], options: LoadOptions): Promise<LoadResult> {
  const catalog = options.catalog ?? defaultCatalog;
  const problems = new ProblemList();
  const absoluteFiles = await listManifestFiles(paths, options.cwd, problems);
  const files: string[] = [];
  const resources: ManifestResource[] = [];
  const candidates: Candidate[] = [];
  // Read every file at once (the disk works while nothing else can), then check them in order.
  const texts = await Promise.all(absoluteFiles.map((absolute) => readManifestFile(absolute, options.cwd, problems)));
  for (const [index, absolute] of absoluteFiles.entries()) {
    files.push(displayPath(absolute, options.cwd));
    const text = texts[index];
    if (!text) continue;
    const results = (options.parser === 'exact' ? undefined : checkCleanFast(text, catalog)) ?? checkExactly(text, catalog, problems);
    for (const result of results) {
      if (result.candidate) candidates.push(result.candidate);
      if (result.resource) resources.push(result.resource);
    }
  }
  if (problems.errorCount === 0 && candidates.length === 0) {
    problems.warning('no_manifests', absoluteFiles.length === 0 ? `no *.yaml or *.yml files found in ${paths.join(', ')}` : `no resources found in ${paths.join(', ')}`);
  }
  checkAcrossResources(candidates, catalog, problems);
  checkMoves(candidates, problems);
  const model: ManifestModel = { resources, files };
  const roots = await manifestRoots(paths, options.cwd);
  const allowOutside = options.allowSecretFilesOutside === true;
  const resolve: SecretEnvironment | undefined = options.checkSecrets
    ? { env: options.env ?? process.env, fileRoots: allowOutside ? 'anywhere' : await realRoots(roots) }
    : undefined;
  await checkSecrets(model, catalog, { roots, cwd: options.cwd, allowOutside, ...(resolve ? { resolve } : {}) }, problems);
  const sorted = problems.sorted(files);
  const errorCount = sorted.filter((problem) => problem.severity === 'error').length;
  return { model, problems: sorted, errorCount, warningCount: sorted.length - errorCount, roots };
}

/**
 * A file through the fast path, kept only when none of its documents has a problem of its own;
 * undefined otherwise, so the file is read exactly and every message comes from there.
 */
function checkCleanFast(text: ManifestText, catalog: KindCatalog): DocumentResult[] | undefined {
  const documents = parseYamlFast(text);
  if (!documents) return undefined;
  const scratch = new ProblemList();
  const results = documents.map((document) => checkDocument(document, catalog, scratch));
  return scratch.size === 0 ? results : undefined;
}

function checkExactly(text: ManifestText, catalog: KindCatalog, problems: ProblemList): DocumentResult[] {
  return parseYamlDocuments(text, problems).map((document) => checkDocument(document, catalog, problems));
}
