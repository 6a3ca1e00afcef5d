// A CEL rule's evaluation cost, estimated from its syntax tree before it ever runs. CEL has no loops, but
// its comprehensions (`all`, `exists`, `exists_one`, `map`, `filter`) nest: 40 nested `[1,2].all(…)` is a
// 743-byte rule that would take 2^40 steps and hold `plan` at full CPU. Each rule gets a budget; one over
// it is refused where it is written, before anything is read or sent.
//
// The estimate: a node costs 1 plus its children; a comprehension costs its receiver plus, for each
// element, its body. A list literal has its own length; any other receiver (a list of the resource or the
// change) is taken as `assumedListLength` long, the size of the API's longest lists (50 ACL entries).

/** Estimated steps one rule may take, per change it is evaluated on. */
export const policyCostBudget = 1_000_000;
const assumedListLength = 50;
const comprehensions = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

/** A node of cel-js's parsed tree (the shape this module and the matches() rewrite walk). */
interface CelNode {
  op: string;
  args: unknown;
}

export function isNode(value: unknown): value is CelNode {
  return (
    value !== null && typeof value === 'object' && typeof (value as { op?: unknown }).op === 'string' && 'args' in value
  );
}

/** The estimated steps of evaluating `node` once; saturates rather than overflowing. */
export function estimateCost(node: unknown): number {
  if (!isNode(node)) return Array.isArray(node) ? node.reduce((sum: number, child) => sum + estimateCost(child), 0) : 0;
  const args = node.args;
  if (
    (node.op === 'rcall' || node.op === 'call') &&
    Array.isArray(args) &&
    typeof args[0] === 'string' &&
    comprehensions.has(args[0])
  ) {
    const receiver = args[1];
    const length =
      isNode(receiver) && receiver.op === 'list' && Array.isArray(receiver.args)
        ? receiver.args.length
        : assumedListLength;
    const body = args.slice(2).reduce((sum: number, child) => sum + estimateCost(child), 0);
    return Math.min(Number.MAX_SAFE_INTEGER, 1 + estimateCost(receiver) + length * Math.max(1, body));
  }
  return Math.min(
    Number.MAX_SAFE_INTEGER,
    1 + (Array.isArray(args) ? args.reduce((sum: number, child) => sum + estimateCost(child), 0) : 0),
  );
}
