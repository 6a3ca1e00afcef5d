import type { KindCatalog } from '../resources/index.js';
import type { Finding } from '../resources/kind.js';
import { displayPath } from './files.js';
import { lazyPlaceOfValue, type ManifestModel } from './model.js';
import type { Pacer } from '../util/pace.js';
import type { Problem, ProblemList } from './problems.js';
import {
  isInside,
  isSecretSource,
  refuseCredentialVariable,
  resolveSecret,
  specialFolderOf,
  type SecretEnvironment,
  type SecretSource,
} from './secrets.js';

export interface SecretCheckOptions {
  /** The folders the manifests were loaded from (absolute): a `fromFile` secret must stay inside. */
  roots: readonly string[];
  /** Folders are shown relative to it. */
  cwd: string;
  /** `--allow-secret-files-outside`. */
  allowOutside: boolean;
  /**
   * Also resolve every secret and apply its field's password rules (`validate --check-secrets`,
   * plan, apply); without it, only what needs no secret is checked.
   */
  resolve?: SecretEnvironment;
}

/**
 * Where secrets come from, checked with file:line: offline, a `fromEnv` naming the API's own
 * credential variables and a `fromFile` path that leaves the manifest folders or points into
 * `/proc`, `/sys` or `/dev`; with `resolve`, the real file behind each path, the values (never
 * equal to the auth token in use) and the password rules. Messages name the variable or file,
 * never the value.
 */
export async function checkSecrets(
  model: ManifestModel,
  catalog: KindCatalog,
  options: SecretCheckOptions,
  problems: ProblemList,
  pacer: Pacer,
): Promise<void> {
  for (const resource of model.resources) {
    if (pacer.due()) await pacer.breathe();
    const kind = catalog.get(resource.kind);
    if (!kind) continue;
    for (const [field, rules] of Object.entries(kind.secrets)) {
      const source = resource.spec[field];
      if (!isSecretSource(source)) continue;
      // The place only for a problem: most secrets have none.
      const where = () => {
        const key = source.source === 'env' ? 'fromEnv' : source.source === 'file' ? 'fromFile' : undefined;
        return {
          source: lazyPlaceOfValue(resource, key ? ['spec', field, key] : ['spec', field]),
          address: resource.address,
          field: `spec.${field}`,
        };
      };
      const refused = refuseOffline(source, options);
      if (refused) {
        problems.error('secret_source', refused, where());
        continue;
      }
      if (!options.resolve) continue;
      // Literal values had their password rules checked with the document already.
      const resolved = await resolveSecret(source, options.resolve);
      if (!resolved.ok) {
        problems.error(resolved.refused ? 'secret_source' : 'secret_unresolved', resolved.message, where());
        continue;
      }
      if (source.source === 'literal') continue;
      const findings = rules.check(resolved.value.reveal());
      if (findings.length > 0) applyRules(source, findings, where(), problems);
    }
  }
}

function refuseOffline(source: SecretSource, options: SecretCheckOptions): string | undefined {
  if (source.source === 'env') return refuseCredentialVariable(source.name);
  if (source.source !== 'file') return undefined;
  const special = specialFolderOf(source.path);
  if (special) return `secret file ${source.written} is a special file (under ${special}), never a secret file`;
  if (!options.allowOutside && !options.roots.some((root) => isInside(source.path, root))) {
    const shown = options.roots.map((root) => (root === options.cwd ? '.' : displayPath(root, options.cwd))).join(', ');
    return `secret file ${source.written} is outside the folders the manifests were loaded from (${shown}); keep secret files beside the manifests, or pass --allow-secret-files-outside`;
  }
  return undefined;
}

function applyRules(
  source: Exclude<SecretSource, { source: 'literal' }>,
  findings: readonly Finding[],
  where: Omit<Problem, 'severity' | 'code' | 'message'>,
  problems: ProblemList,
): void {
  const via = source.source === 'env' ? `the value of ${source.name}` : `the content of ${source.written}`;
  for (const finding of findings) {
    if (finding.severity === 'error') problems.error('secret_rule', `${via} ${finding.message}`, where);
    else problems.warning('secret_rule', `${via} ${finding.message}`, where);
  }
}
