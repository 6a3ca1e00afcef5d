// Checks of `metadata.moved_from` across the manifests (docs/manifests.md, moves): what can be
// judged without the state. A move keeps its kind, names an address no resource still declares
// (which also rules out chains and cycles: every link of one would still be declared), and one old
// address moves to one resource only. Whether the state holds the old or the new address is the
// planner's to judge.
import type { SourcePlace } from '../util/errors.js';
import { didYouMean } from '../util/suggest.js';
import type { ProblemList } from './problems.js';
import type { Candidate } from './references.js';
import { placeOf, positionAt, toPointer } from './source.js';

/** `kinds`: the names of the known kinds, so an old address of no known kind is said to be that. */
export function checkMoves(candidates: readonly Candidate[], problems: ProblemList, kinds: readonly string[]): void {
  const byAddress = new Map<string, Candidate>();
  for (const candidate of candidates)
    if (!byAddress.has(candidate.address)) byAddress.set(candidate.address, candidate);
  const claimedBy = new Map<string, { candidate: Candidate; index: number }>();
  for (const candidate of candidates) {
    if (!candidate.movedFrom) continue;
    const seen = new Set<string>();
    candidate.movedFrom.forEach((old, index) => {
      const where = { source: placeOfMove(candidate, index), address: candidate.address, field: `metadata.moved_from` };
      // An old address of the wrong form is the envelope schema's to report.
      if (!/^[A-Za-z]+\/./.test(old)) return undefined;
      const kind = old.slice(0, old.indexOf('/'));
      const fail = (message: string, related?: SourcePlace) =>
        problems.error('move_invalid', message, { ...where, ...(related ? { related } : {}) });
      if (old === candidate.address)
        return fail(`${old} is this resource's own address; a move names the address it had before`);
      if (!kinds.includes(kind))
        return fail(`${old}: unknown kind "${kind}"${didYouMean(kind, kinds) || `; known kinds: ${kinds.join(', ')}`}`);
      if (kind !== candidate.kind.name) {
        return fail(
          `${old} is a ${kind}; a ${candidate.kind.name} cannot take its place (a move keeps the kind; delete one and create the other instead)`,
        );
      }
      if (seen.has(old)) return fail(`${old} is listed twice`);
      seen.add(old);
      const declared = byAddress.get(old);
      if (declared) {
        const at = placeOfMove(declared, -1);
        return fail(
          `${old} is still declared at ${formatPlace(at)}; a resource can only move from an address no resource has now (for a chain of renames, list every old address on the last one)`,
          at,
        );
      }
      const first = claimedBy.get(old);
      if (first) {
        const at = placeOfMove(first.candidate, first.index);
        return fail(
          `${old} already moves to ${first.candidate.address} (${formatPlace(at)}); one old address can move to one resource only`,
          at,
        );
      }
      claimedBy.set(old, { candidate, index });
      return undefined;
    });
  }
}

/** The place of the `index`th old address (its list item, or the single value); -1: the resource's metadata.name. */
function placeOfMove(candidate: Candidate, index: number): SourcePlace {
  const positions = candidate.source.positions;
  const item = toPointer(['metadata', 'moved_from', index]);
  const pointer = index < 0 ? '/metadata/name' : positions.get(item) ? item : '/metadata/moved_from';
  return placeOf(candidate.source.file, positionAt(positions, pointer));
}

function formatPlace(where: SourcePlace): string {
  return `${where.file}:${where.line}:${where.column}`;
}
