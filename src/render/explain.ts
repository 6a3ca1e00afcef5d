import type { FieldExplanation, KindExplanation } from '../resources/explain.js';

/** `telform explain` as text: pure functions of the explanation. */
export function renderFieldExplanation(field: FieldExplanation): string {
  const lines = [`${field.kind}.${field.path}`, `  type: ${field.type}`];
  if (field.description) lines.push(`  ${field.description}`);
  lines.push(
    `  ${field.required ? 'required' : 'optional'}${field.default !== undefined ? `, default ${JSON.stringify(field.default)}` : ''}`,
  );
  for (const rule of field.rules) lines.push(`  rule: ${rule}`);
  for (const change of field.change) lines.push(`  change: ${change}`);
  return `${lines.join('\n')}\n`;
}

export function renderKindExplanation(kind: KindExplanation): string {
  const lines = [kind.kind, `  ${kind.description}`, ...kind.facts.map((fact) => `  ${fact}`), '', 'Fields:'];
  const width = Math.max(...kind.fields.map((field) => field.path.length));
  for (const field of kind.fields) {
    const change = field.change[0]?.split(':')[0] ?? '';
    const details = [
      field.type,
      field.required
        ? 'required'
        : field.default !== undefined
          ? `default ${JSON.stringify(field.default)}`
          : 'optional',
      change,
    ];
    lines.push(`  ${field.path.padEnd(width)}  ${details.join('; ')}`);
  }
  lines.push('', `Run telform explain ${kind.kind}.FIELD for a field's rules.`);
  return `${lines.join('\n')}\n`;
}
