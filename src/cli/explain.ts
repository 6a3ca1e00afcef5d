import { Command } from 'commander';
import { TelformError } from '../util/errors.js';
import { suggest } from '../util/suggest.js';
import { rendererFor } from '../render/index.js';
import { explainField, explainKind } from '../resources/explain.js';
import { catalog } from '../resources/index.js';

/** `telform explain KIND[.field]`: what a field is, what rules it obeys, what changing it does. */
export function explainCommand(): Command {
  return new Command('explain')
    .description(
      'Describe a kind or a field: type, rules, default, and whether a change is in place, a replace, billable, irreversible or blocked. Offline.',
    )
    .argument('<kind[.field]>', `a kind (${catalog.names.join(', ')}), optionally with a field path`)
    .addHelpText(
      'after',
      `
Examples:
  $ telform explain Campaign
  $ telform explain Trunk.trunk_direction
  $ telform explain SipIpAcl.entries.ip`,
    )
    .action((subject: string) => {
      const [kindName = '', ...path] = subject.split('.');
      const kind = catalog.get(kindName);
      if (!kind) {
        const hint = suggest(kindName, catalog.names);
        throw new TelformError(
          'bad_option',
          `unknown kind "${kindName}"${hint ? `; did you mean ${hint}?` : ''} (kinds: ${catalog.names.join(', ')})`,
        );
      }
      if (path.length === 0) {
        process.stdout.write(rendererFor('text', 'kindExplanation')(explainKind(kind)));
        return;
      }
      const field = explainField(kind, path.join('.'));
      if (!field) {
        const fields = Object.keys(kind.spec.shape);
        const hint = suggest(path[0] ?? '', fields);
        throw new TelformError(
          'bad_option',
          `${kind.name} has no field "${path.join('.')}"${hint && hint !== path[0] ? `; did you mean ${hint}?` : ''} (fields: ${fields.join(', ')})`,
        );
      }
      process.stdout.write(rendererFor('text', 'fieldExplanation')(field));
    });
}
