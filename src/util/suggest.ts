/**
 * "Did you mean" for misspelled kinds, fields, enum values and refs.
 *
 * A candidate is suggested when it equals the input ignoring case, `-` and `_`, or when its
 * optimal-string-alignment distance (Levenshtein plus adjacent transpositions, so `turnk` is one
 * edit from `trunk`) is at most a third of the longer word's length (at most 3; words shorter than
 * three characters must match exactly).
 */

/** Optimal string alignment distance, giving up (returning `limit + 1`) once it exceeds `limit`. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previousPrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  let previousRowMinimum = 0;
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (previousPrevious[j - 2] as number) + 1);
      }
      current.push(value);
      rowMinimum = Math.min(rowMinimum, value);
    }
    // A transposition reaches back two rows, so give up only when two rows in a row are past it.
    if (rowMinimum > limit && previousRowMinimum > limit) return limit + 1;
    previousRowMinimum = rowMinimum;
    previousPrevious = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

function fold(word: string): string {
  return word.toLowerCase().replace(/[-_]/g, '');
}

/** The closest candidate to `input`, or undefined when none is close enough to be a likely typo. */
export function suggest(input: string, candidates: Iterable<string>): string | undefined {
  const folded = fold(input);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const foldedCandidate = fold(candidate);
    if (foldedCandidate === folded) return candidate;
    const limit = Math.min(3, Math.floor(Math.max(folded.length, foldedCandidate.length) / 3));
    const distance = editDistance(folded, foldedCandidate, limit);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `; did you mean "x"?` or an empty string, ready to append to a message. */
export function didYouMean(input: string, candidates: Iterable<string>): string {
  const found = suggest(input, candidates);
  return found === undefined ? '' : `; did you mean "${found}"?`;
}
