import { TelformError } from '../errors.js';
import type { DesiredResource as EngineResource, SecretSourceRef } from '../engine/model.js';
import { loadManifests } from '../manifest/load.js';
import type { DesiredResource as ManifestResource } from '../manifest/model.js';
import { formatProblem } from '../manifest/report.js';
import { describeSecretSource, isSecretSource, resolveSecret, type SecretSource } from '../manifest/secrets.js';
import { placeOfResource } from '../manifest/model.js';

/**
 * Manifests as the engine wants them: validated (every problem printed; any error stops the run
 * before a request is sent), secrets split from the spec, and a resolver that reads a resource's
 * secrets only when plan or apply needs them.
 */
export interface DesiredSet {
  resources: EngineResource[];
  resolveSecrets(resource: EngineResource): Promise<Record<string, string>>;
}

export interface DesiredIo {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Problems (warnings, and errors before failing) go here: stderr. */
  report(line: string): void;
}

export async function loadDesired(paths: readonly string[], io: DesiredIo): Promise<DesiredSet> {
  if (paths.length === 0) throw new TelformError('no_manifests', 'no manifests given: pass -f PATH (a file or a folder; repeatable)');
  const result = await loadManifests(paths, { cwd: io.cwd, checkSecrets: true, env: io.env });
  for (const problem of result.problems) io.report(formatProblem(problem));
  if (result.errorCount > 0) {
    throw new TelformError('invalid_manifests', `the manifests have ${result.errorCount} error${result.errorCount === 1 ? '' : 's'} (listed above); nothing was sent`);
  }
  const sources = new Map<string, Record<string, SecretSource>>();
  const resources = result.model.resources.map((resource) => {
    const { engine, secrets } = toEngineResource(resource);
    sources.set(engine.address, secrets);
    return engine;
  });
  return { resources, resolveSecrets: (resource) => resolveSources(resource.address, sources.get(resource.address) ?? {}, io.env) };
}

function toEngineResource(resource: ManifestResource): { engine: EngineResource; secrets: Record<string, SecretSource> } {
  const spec: Record<string, unknown> = {};
  const secrets: Record<string, SecretSource> = {};
  const secretSources: Record<string, SecretSourceRef> = {};
  for (const [field, value] of Object.entries(resource.spec)) {
    if (isSecretSource(value)) {
      secrets[field] = value;
      secretSources[field] = describeForPlan(value);
    } else {
      spec[field] = value;
    }
  }
  return {
    engine: {
      kind: resource.kind,
      name: resource.name,
      address: resource.address,
      protect: resource.protect,
      spec,
      secretSources,
      source: placeOfResource(resource),
    },
    secrets,
  };
}

function describeForPlan(source: SecretSource): SecretSourceRef {
  switch (source.source) {
    case 'env':
      return { fromEnv: source.name };
    case 'file':
      return { fromFile: source.path };
    case 'literal':
      return { literal: true };
    default: {
      const never: never = source;
      return never;
    }
  }
}

/** Resolves secrets named by a saved plan: literals are not in a plan file, so they cannot be. */
export function sourcesFromPlan(refs: Record<string, SecretSourceRef>, address: string): Record<string, SecretSource> {
  const out: Record<string, SecretSource> = {};
  for (const [field, ref] of Object.entries(refs)) {
    if ('fromEnv' in ref) out[field] = { source: 'env', name: ref.fromEnv };
    else if ('fromFile' in ref) out[field] = { source: 'file', path: ref.fromFile, written: ref.fromFile };
    else {
      throw new TelformError(
        'literal_secret_in_plan',
        `${address}: ${field} is a literal in the manifest, and a saved plan never holds secret values; use { fromEnv } or { fromFile } to apply a saved plan`,
        { place: { address } },
      );
    }
  }
  return out;
}

export async function resolveSources(
  address: string,
  sources: Record<string, SecretSource>,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const [field, source] of Object.entries(sources)) {
    const resolution = await resolveSecret(source, { env });
    if (!resolution.ok) {
      throw new TelformError('secret_unresolved', `${field} (${describeSecretSource(source)}): ${resolution.message}`, { place: { address } });
    }
    values[field] = resolution.value.reveal();
  }
  return values;
}
