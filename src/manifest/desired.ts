import path from 'node:path';
import type { Scope } from '../resources/ownership-scope.js';
import { TelformError } from '../util/errors.js';
import type { DesiredResource, ResolvedSecret, SecretSourceRef } from '../engine/model.js';
import { displayPath } from './files.js';
import { loadManifests } from './load.js';
import { lintCampaignsPaced } from './campaign-lint.js';
import type { PlanFinding } from '../engine/plan-types.js';
import { placeOfResource, placeOfValue, type ManifestResource } from './model.js';
import { Pacer } from '../util/pace.js';
import { formatProblem } from './report.js';
import { isSecretSource, realRoots, resolveSecret, type SecretEnvironment, type SecretSource } from './secrets.js';
import type { UsedValue, ValueSet } from './values.js';

/**
 * Manifests as the engine wants them: validated (every problem printed; any error stops the run
 * before a request is sent), secrets split from the spec, and a resolver that reads a resource's
 * secrets only when plan or apply needs them.
 */
export interface DesiredSet {
  resources: DesiredResource[];
  /** Findings of the 10DLC lint on the manifests' campaigns (a saved plan carries its own). */
  findings: PlanFinding[];
  resolveSecrets(resource: DesiredResource): Promise<Record<string, ResolvedSecret>>;
  /**
   * With `DesiredIo.deferWarnings`: the manifests' warnings, each with the resource it is about, for
   * the plan to print those about what it changes (validate prints them all).
   */
  warnings?: Array<{ address?: string; line: string }>;
  /** The values the manifests used (`{ value: NAME }`), for the plan to show; absent for a saved plan. */
  values?: UsedValue[];
}

export interface DesiredIo {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** `--allow-secret-files-outside`. */
  allowSecretFilesOutside?: boolean;
  /** Problems (warnings, and errors before failing) go here: stderr. */
  report(line: string): void;
  /** What `{ value: NAME }` references take: from the accounts file, or `--values` / `--value`. */
  values?: ValueSet;
  /** The part of the account the state owns (`LoadOptions.scope`). */
  scope?: Scope;
  /**
   * Keep warnings back (`DesiredSet.warnings`) instead of reporting them: a plan says those about
   * the resources it changes. A held value's warning is dropped: the plan's judgement refuses a
   * create or change that breaks the rule, and an object left as it is breaks nothing.
   */
  deferWarnings?: boolean;
}

export async function loadDesired(paths: readonly string[], io: DesiredIo): Promise<DesiredSet> {
  if (paths.length === 0)
    throw new TelformError('no_manifests', 'no manifests given: pass -f PATH (a file or a folder; repeatable)');
  const allowOutside = io.allowSecretFilesOutside === true;
  const result = await loadManifests(paths, {
    cwd: io.cwd,
    checkSecrets: true,
    env: io.env,
    allowSecretFilesOutside: allowOutside,
    ...(io.values ? { values: io.values } : {}),
    ...(io.scope ? { scope: io.scope } : {}),
  });
  const deferred: Array<{ address?: string; line: string }> = [];
  for (const problem of result.problems) {
    if (!io.deferWarnings || problem.severity === 'error') io.report(formatProblem(problem));
    else if (problem.code !== 'held_value')
      deferred.push({
        ...(problem.address === undefined ? {} : { address: problem.address }),
        line: formatProblem(problem),
      });
  }
  if (result.errorCount > 0) {
    // The errors also travel with it, for a report that is read without the lines above (--accounts).
    const errors = result.problems.filter((problem) => problem.severity === 'error').map(formatProblem);
    throw new TelformError(
      'invalid_manifests',
      `the manifests have ${result.errorCount} error${result.errorCount === 1 ? '' : 's'} (listed above); nothing was sent`,
      {
        details: { problems: errors },
      },
    );
  }
  const sources = new Map<string, Record<string, SecretSource>>();
  const resources: DesiredResource[] = [];
  // In slices: reads started meanwhile (run/early-reads.ts) go on between them.
  const pacer = new Pacer();
  for (const resource of result.model.resources) {
    if (pacer.due()) await pacer.breathe();
    const { desired, secrets } = toDesiredResource(resource, io.cwd);
    sources.set(desired.address, secrets);
    resources.push(desired);
  }
  const environment: SecretEnvironment = {
    env: io.env,
    fileRoots: allowOutside ? 'anywhere' : await realRoots(result.roots),
  };
  const findings = await lintCampaignsPaced(result.model.resources, pacer);
  return {
    resources,
    findings,
    resolveSecrets: (resource) =>
      resolveSources(resource.address, sources.get(resource.address) ?? {}, environment, io.cwd),
    ...(result.values.length > 0 ? { values: result.values } : {}),
    ...(io.deferWarnings ? { warnings: deferred } : {}),
  };
}

function toDesiredResource(
  resource: ManifestResource,
  cwd: string,
): { desired: DesiredResource; secrets: Record<string, SecretSource> } {
  const spec: Record<string, unknown> = {};
  const secrets: Record<string, SecretSource> = {};
  const secretSources: Record<string, SecretSourceRef> = {};
  const written = resource.spec;
  for (const field of Object.keys(written)) {
    const value = written[field];
    if (isSecretSource(value)) {
      secrets[field] = value;
      secretSources[field] = describeForPlan(value, cwd);
    } else {
      spec[field] = value;
    }
  }
  // Field by field, in the order the type lists them (no spreads: thousands of resources per run);
  // spec and secretSources follow below.
  const desired = {
    kind: resource.kind,
    name: resource.name,
    address: resource.address,
    protect: resource.protect,
  } as DesiredResource;
  if (resource.nameDefaulted) desired.nameDefaulted = true;
  if (resource.movedFrom) desired.movedFrom = [...resource.movedFrom];
  desired.spec = spec;
  desired.secretSources = secretSources;
  desired.source = placeOfResource(resource);
  desired.placeOfField = (field) =>
    placeOfValue(resource, ['spec', field], written[field] === undefined ? 'key' : 'value');
  if (resource.held) desired.held = resource.held;
  return { desired, secrets };
}

/** A file as the plan and the ledger name it: relative to the working directory, with `/`. */
function portablePath(absolute: string, cwd: string): string {
  return displayPath(absolute, cwd).split(path.sep).join('/');
}

function describeForPlan(source: SecretSource, cwd: string): SecretSourceRef {
  switch (source.source) {
    case 'env':
      return { fromEnv: source.name };
    case 'file':
      return { fromFile: portablePath(source.path, cwd) };
    case 'literal':
      return { literal: true };
    default: {
      const never: never = source;
      return never;
    }
  }
}

/**
 * Resolves secrets named by a saved plan (files relative to the working directory): literals are
 * not in a plan file, so they cannot be.
 */
function sourcesFromPlan(
  refs: Record<string, SecretSourceRef>,
  address: string,
  cwd: string,
): Record<string, SecretSource> {
  const out: Record<string, SecretSource> = {};
  for (const [field, ref] of Object.entries(refs)) {
    if ('fromEnv' in ref) out[field] = { source: 'env', name: ref.fromEnv };
    else if ('fromFile' in ref)
      out[field] = { source: 'file', path: path.resolve(cwd, ref.fromFile), written: ref.fromFile };
    else {
      throw new TelformError(
        'literal_secret_in_plan',
        `${field} is a literal in the manifest, and a saved plan never holds secret values; use { fromEnv } or { fromFile } to apply a saved plan`,
        { place: { address } },
      );
    }
  }
  return out;
}

/** Each secret's value and where it was really read from (a file by its real path). */
async function resolveSources(
  address: string,
  sources: Record<string, SecretSource>,
  environment: SecretEnvironment,
  cwd: string,
): Promise<Record<string, ResolvedSecret>> {
  const values: Record<string, ResolvedSecret> = {};
  for (const [field, source] of Object.entries(sources)) {
    const resolution = await resolveSecret(source, environment);
    if (!resolution.ok) {
      throw new TelformError(
        resolution.refused ? 'secret_source' : 'secret_unresolved',
        `${field}: ${resolution.message}`,
        {
          place: { address },
        },
      );
    }
    const origin =
      source.source === 'env'
        ? `env ${source.name}`
        : source.source === 'file'
          ? `file ${portablePath(resolution.realPath ?? source.path, cwd)}`
          : 'literal';
    values[field] = { value: resolution.value.reveal(), origin };
  }
  return values;
}

/**
 * Reads the secrets a saved plan names, from the working directory: a secret file must lie inside
 * it (unless `--allow-secret-files-outside`), as the manifest folders bound it at plan time.
 */
export async function secretResolverForPlan(io: {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  allowSecretFilesOutside?: boolean;
}) {
  const environment: SecretEnvironment = {
    env: io.env,
    fileRoots: io.allowSecretFilesOutside ? 'anywhere' : await realRoots([io.cwd]),
    fileRootsName: 'the working directory',
  };
  return (resource: DesiredResource): Promise<Record<string, ResolvedSecret>> =>
    resolveSources(
      resource.address,
      sourcesFromPlan(resource.secretSources, resource.address, io.cwd),
      environment,
      io.cwd,
    );
}
