import type { KindCatalog } from '../resources/index.js';
import type { Kind } from '../resources/kind.js';
import { catalog as defaultCatalog } from '../resources/index.js';
import { checkDocument, type DocumentResult } from './document.js';
import { displayPath, listManifestFiles, manifestRoots, readManifestFile, type ManifestText } from './files.js';
import type { ManifestModel, ManifestResource } from './model.js';
import { ProblemList, type Problem } from './problems.js';
import { checkAcrossResources, checkScope, type Candidate } from './references.js';
import { isEverything, type Scope } from '../resources/ownership-scope.js';
import { checkMoves } from './moves.js';
import { checkSecrets } from './secret-check.js';
import { realRoots, type SecretEnvironment } from './secrets.js';
import { fieldUnder, substituteValues, ValueUse, type UsedValue, type ValueSet } from './values.js';
import type { YamlDocument } from './yaml-document.js';
import { loadFullParsers, needsParsers, parseYamlFast, type FullParsers } from './yaml-fast.js';
import { Pacer } from '../util/pace.js';

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
  /** The values `{ value: NAME }` references take (docs/values-and-waves.md); none when absent. */
  values?: ValueSet;
  /**
   * The part of the account the state owns (docs/state-and-safety.md, scopes): a document outside
   * it is an error at its line, and a `{ ref }` to an object outside it may name no document (it
   * is looked up in the account, read only). Absent: everything.
   */
  scope?: Scope;
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
  /** The values the manifests used, with their origins, by name. */
  values: UsedValue[];
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
  const use = new ValueUse(options.values);
  // The YAML libraries load when the first file outside the plain subset, or with a problem, needs them.
  let parsers: FullParsers | undefined = options.parser === 'exact' ? await loadFullParsers() : undefined;
  // The event loop runs every few milliseconds: reads started while the manifests load keep going.
  const pacer = new Pacer();
  for (const [index, absolute] of absoluteFiles.entries()) {
    if (pacer.due()) await pacer.breathe();
    files.push(displayPath(absolute, options.cwd));
    const text = texts[index];
    if (!text) continue;
    let fast = options.parser === 'exact' ? undefined : await checkCleanFast(text, catalog, use, parsers, pacer);
    if (fast === needsParsers)
      fast = await checkCleanFast(text, catalog, use, (parsers = await loadFullParsers()), pacer);
    // With the libraries loaded the fast path never asks for them again.
    const results =
      (fast === needsParsers ? undefined : fast) ??
      (await checkExactly(text, catalog, problems, use, (parsers ??= await loadFullParsers()), pacer));
    for (const result of results) {
      if (result.candidate) candidates.push(result.candidate);
      if (result.resource) resources.push(result.resource);
    }
  }
  if (problems.errorCount === 0 && candidates.length === 0) {
    problems.warning(
      'no_manifests',
      absoluteFiles.length === 0
        ? `no *.yaml or *.yml files found in ${paths.join(', ')}`
        : `no resources found in ${paths.join(', ')}`,
    );
  }
  if (pacer.due()) await pacer.breathe();
  if (options.scope && !isEverything(options.scope)) checkScope(candidates, options.scope, problems);
  await checkAcrossResources(candidates, catalog, problems, pacer, options.scope);
  checkMoves(candidates, problems, catalog.names);
  use.reportUnused(problems);
  if (pacer.due()) await pacer.breathe();
  const model: ManifestModel = { resources, files };
  const roots = await manifestRoots(paths, options.cwd);
  const allowOutside = options.allowSecretFilesOutside === true;
  const resolve: SecretEnvironment | undefined = options.checkSecrets
    ? { env: options.env ?? process.env, fileRoots: allowOutside ? 'anywhere' : await realRoots(roots) }
    : undefined;
  await checkSecrets(
    model,
    catalog,
    { roots, cwd: options.cwd, allowOutside, ...(resolve ? { resolve } : {}) },
    problems,
    pacer,
  );
  if (pacer.due()) await pacer.breathe();
  const sorted = problems.sorted(files);
  const errorCount = sorted.filter((problem) => problem.severity === 'error').length;
  return { model, problems: sorted, errorCount, warningCount: sorted.length - errorCount, roots, values: use.used() };
}

/**
 * A file through the fast path, kept only when none of its documents has a problem of its own;
 * undefined otherwise, so the file is read exactly and every message comes from there.
 */
async function checkCleanFast(
  text: ManifestText,
  catalog: KindCatalog,
  use: ValueUse,
  parsers: FullParsers | undefined,
  pacer: Pacer,
): Promise<DocumentResult[] | undefined | typeof needsParsers> {
  const documents = await parseYamlFast(text, parsers, pacer);
  if (!documents || documents === needsParsers) return documents;
  // Values used by a file that is then read again exactly would be counted twice: count on a copy.
  const trial = use.fork();
  const scratch = new ProblemList();
  const results: DocumentResult[] = [];
  for (const document of documents) {
    if (pacer.due()) await pacer.breathe();
    results.push(checkWithValues(document, catalog, scratch, trial));
    // A problem sends the file to the exact path: the rest need no checking here.
    if (scratch.size !== 0) return undefined;
  }
  use.join(trial);
  return results;
}

async function checkExactly(
  text: ManifestText,
  catalog: KindCatalog,
  problems: ProblemList,
  use: ValueUse,
  parsers: FullParsers,
  pacer: Pacer,
): Promise<DocumentResult[]> {
  const results: DocumentResult[] = [];
  for (const document of parsers.exact.parseYamlDocuments(text, problems)) {
    if (pacer.due()) await pacer.breathe();
    results.push(checkWithValues(document, catalog, problems, use));
  }
  return results;
}

const secretFieldsOfKind = new WeakMap<Kind, readonly string[]>();

function secretFieldsOf(kind: Kind): readonly string[] {
  let fields = secretFieldsOfKind.get(kind);
  if (!fields) secretFieldsOfKind.set(kind, (fields = Object.keys(kind.secrets)));
  return fields;
}

/**
 * `checkDocument` after the document's `{ value: NAME }` references are replaced by their values.
 * A problem inside a substituted value also names where the value was given (message and
 * `related`), so it points at both the manifest and the values; a reference that could not be
 * replaced is reported once, not again by the schema.
 */
function checkWithValues(
  document: YamlDocument,
  catalog: KindCatalog,
  problems: ProblemList,
  use: ValueUse,
): DocumentResult {
  const value = document.value as { kind?: unknown; metadata?: { name?: unknown } } | null;
  const kind = typeof value?.kind === 'string' ? catalog.get(value.kind) : undefined;
  const name = typeof value?.metadata === 'object' && value.metadata !== null ? value.metadata.name : undefined;
  const address = typeof value?.kind === 'string' && typeof name === 'string' ? `${value.kind}/${name}` : undefined;
  const { substitutions, failed } = substituteValues(document.value, {
    file: document.file,
    positions: document.positions,
    address,
    secretFields: kind ? secretFieldsOf(kind) : [],
    use,
    problems,
  });
  if (substitutions.length === 0 && failed.length === 0) return checkDocument(document, catalog, problems);
  const scratch = new ProblemList();
  const result = checkDocument(document, catalog, scratch);
  for (const problem of scratch.sorted([])) {
    if (failed.some((path) => fieldUnder(path, problem.field))) continue;
    const substitution = substitutions.find((each) => fieldUnder(each.path, problem.field));
    if (!substitution) {
      problems.add(problem);
      continue;
    }
    const { origin } = substitution.given;
    problems.add({
      ...problem,
      // At the reference, not at the field's key: the manifest line that takes the value.
      source: substitution.place,
      message: `${problem.message} (value ${substitution.name}, given at ${origin.where})`,
      ...(origin.place ? { related: origin.place } : {}),
    });
  }
  return result;
}
