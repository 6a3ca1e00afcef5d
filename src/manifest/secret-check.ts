import type { KindRegistry } from '../resources/index.js';
import { placeOfValue, type DesiredModel } from './model.js';
import type { ProblemList } from './problems.js';
import { isSecretSource, resolveSecret, type SecretEnvironment } from './secrets.js';

/**
 * `validate --check-secrets` (issue #5, item 5): resolves every `fromEnv` / `fromFile` secret and
 * applies its field's password rules. Literal secrets were checked already. Messages name the
 * variable or file, never the value.
 */
export async function checkSecretValues(model: DesiredModel, registry: KindRegistry, environment: SecretEnvironment, problems: ProblemList): Promise<void> {
  for (const resource of model.resources) {
    const kind = registry.get(resource.kind);
    if (!kind) continue;
    for (const [field, rules] of Object.entries(kind.secrets)) {
      const source = resource.spec[field];
      if (!isSecretSource(source) || source.source === 'literal') continue;
      const key = source.source === 'env' ? 'fromEnv' : 'fromFile';
      const where = { source: placeOfValue(resource, ['spec', field, key]), address: resource.address, field: `spec.${field}` };
      const resolved = await resolveSecret(source, environment);
      if (!resolved.ok) {
        problems.error('secret_unresolved', resolved.message, where);
        continue;
      }
      const via = source.source === 'env' ? `the value of ${source.name}` : `the content of ${source.written}`;
      for (const finding of rules.check(resolved.value.reveal())) {
        if (finding.severity === 'error') problems.error('secret_rule', `${via} ${finding.message}`, where);
        else problems.warning('secret_rule', `${via} ${finding.message}`, where);
      }
    }
  }
}
