import { describe, expect, it } from 'vitest';
import { DependencyGraph } from '../../src/util/graph.js';

function graphOf(edges: Array<[string, string]>, nodes: string[] = []): DependencyGraph {
  const graph = new DependencyGraph();
  for (const node of nodes) graph.addNode(node);
  for (const [from, to] of edges) graph.addEdge(from, to);
  return graph;
}

describe('DependencyGraph', () => {
  it('orders nodes in waves, dependencies first, sorted within a wave', () => {
    const graph = graphOf(
      [
        ['Trunk/out', 'TrunkIpAcl/office'],
        ['Trunk/out', 'TrunkCredential/login'],
        ['Trunk/in', 'OriginationUri/pbx'],
        ['Campaign/offers', 'Brand/acme'],
      ],
      ['SipCredential/phones'],
    );
    expect(graph.findCycles()).toEqual([]);
    expect(graph.waves()).toEqual([
      ['Brand/acme', 'OriginationUri/pbx', 'SipCredential/phones', 'TrunkCredential/login', 'TrunkIpAcl/office'],
      ['Campaign/offers', 'Trunk/in', 'Trunk/out'],
    ]);
  });

  it('finds each cycle once, as a path through its smallest node', () => {
    const graph = graphOf([
      ['c', 'a'],
      ['a', 'b'],
      ['b', 'c'],
      ['x', 'x'],
      ['d', 'a'],
    ]);
    expect(graph.findCycles()).toEqual([
      ['a', 'b', 'c', 'a'],
      ['x', 'x'],
    ]);
    // Nodes on or behind a cycle get no wave.
    expect(graph.waves()).toEqual([]);
  });

  it('gives the shortest cycle through the smallest node of a component', () => {
    const graph = graphOf([
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'a'],
      ['b', 'a'],
    ]);
    expect(graph.findCycles()).toEqual([['a', 'b', 'a']]);
  });

  it('handles a chain of 20,000 nodes without exhausting the stack', () => {
    const graph = new DependencyGraph();
    for (let index = 1; index < 20_000; index++) graph.addEdge(`n${index}`, `n${index - 1}`);
    expect(graph.findCycles()).toEqual([]);
    expect(graph.waves()).toHaveLength(20_000);
    graph.addEdge('n0', 'n19999');
    expect(graph.findCycles()[0]).toHaveLength(20_001);
  });
});
