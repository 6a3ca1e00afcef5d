// Durations as people write them in flags and files: `500ms`, `90s`, `10m`, `1h30m`, `2d`.

const unitMs: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds of a duration written with units (`1h30m`); undefined for anything else, a bare number included. */
export function parseDuration(text: string): number | undefined {
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) return undefined;
  return parts.reduce((total, part) => total + Number(part[1]) * (unitMs[part[2] as string] as number), 0);
}
