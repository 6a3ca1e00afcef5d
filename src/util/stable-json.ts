// JSON text that is the same for equal data (object keys sorted): what fingerprints and seals hash.

/** JSON with object keys sorted, so equal data always gives the same text. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + stableJson(value[i]);
    return `${text}]`;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    let text = '{';
    let first = true;
    for (const key of Object.keys(record).sort()) {
      text += `${first ? '' : ','}${JSON.stringify(key)}:${stableJson(record[key])}`;
      first = false;
    }
    return `${text}}`;
  }
  return JSON.stringify(value ?? null);
}
