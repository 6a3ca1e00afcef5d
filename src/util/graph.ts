/**
 * A dependency graph of string nodes, with cycle detection and dependency waves: the engine orders
 * kinds with it (what is referred to before what refers to it), and manifest validation finds
 * reference cycles between resources with it. Iterative throughout, so ten thousand resources in a
 * chain cannot exhaust the stack.
 */
export class DependencyGraph {
  readonly #edges = new Map<string, Set<string>>();

  addNode(node: string): void {
    if (!this.#edges.has(node)) this.#edges.set(node, new Set());
  }

  /** `from` depends on `to` (`to` must exist first). Both nodes are added if new. */
  addEdge(from: string, to: string): void {
    this.addNode(from);
    this.addNode(to);
    (this.#edges.get(from) as Set<string>).add(to);
  }

  get nodes(): string[] {
    return [...this.#edges.keys()];
  }

  dependenciesOf(node: string): string[] {
    return [...(this.#edges.get(node) ?? [])];
  }

  /**
   * Every cycle, one per strongly connected component with more than one node (or a node
   * depending on itself), as the path `[a, b, …, a]` through its smallest node. Sorted, stable.
   */
  findCycles(): string[][] {
    const cycles: string[][] = [];
    for (const component of this.#stronglyConnected()) {
      const only = component[0] as string;
      if (component.length === 1 && !this.#edges.get(only)?.has(only)) continue;
      const members = new Set(component);
      const start = [...component].sort()[0] as string;
      cycles.push(this.#shortestCycle(start, members));
    }
    return cycles.sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1));
  }

  /**
   * Nodes in waves: each wave depends only on earlier ones, nodes sorted within a wave. Nodes on
   * or behind a cycle are left out; call `findCycles` first to report them.
   */
  waves(): string[][] {
    const remaining = new Map<string, number>();
    const dependents = new Map<string, string[]>();
    for (const [node, targets] of this.#edges) {
      remaining.set(node, targets.size);
      for (const target of targets) {
        const list = dependents.get(target);
        if (list) list.push(node);
        else dependents.set(target, [node]);
      }
    }
    const waves: string[][] = [];
    let current = [...remaining].filter(([, count]) => count === 0).map(([node]) => node);
    while (current.length > 0) {
      current.sort();
      waves.push(current);
      const next: string[] = [];
      for (const node of current) {
        for (const dependent of dependents.get(node) ?? []) {
          const count = (remaining.get(dependent) as number) - 1;
          remaining.set(dependent, count);
          if (count === 0) next.push(dependent);
        }
      }
      current = next;
    }
    return waves;
  }

  /** Tarjan's algorithm with an explicit stack. */
  #stronglyConnected(): string[][] {
    const index = new Map<string, number>();
    const lowLink = new Map<string, number>();
    const onStack = new Set<string>();
    const stack: string[] = [];
    const components: string[][] = [];
    let counter = 0;
    for (const root of this.#edges.keys()) {
      if (index.has(root)) continue;
      const work: Array<{ node: string; targets: string[]; next: number }> = [];
      const visit = (node: string): void => {
        index.set(node, counter);
        lowLink.set(node, counter);
        counter++;
        stack.push(node);
        onStack.add(node);
        work.push({ node, targets: [...(this.#edges.get(node) ?? [])], next: 0 });
      };
      visit(root);
      while (work.length > 0) {
        const frame = work[work.length - 1] as { node: string; targets: string[]; next: number };
        if (frame.next < frame.targets.length) {
          const target = frame.targets[frame.next++] as string;
          if (!index.has(target)) visit(target);
          else if (onStack.has(target))
            lowLink.set(frame.node, Math.min(lowLink.get(frame.node) as number, index.get(target) as number));
          continue;
        }
        work.pop();
        const parent = work[work.length - 1];
        if (parent)
          lowLink.set(parent.node, Math.min(lowLink.get(parent.node) as number, lowLink.get(frame.node) as number));
        if (lowLink.get(frame.node) === index.get(frame.node)) {
          const component: string[] = [];
          let member: string;
          do {
            member = stack.pop() as string;
            onStack.delete(member);
            component.push(member);
          } while (member !== frame.node);
          components.push(component);
        }
      }
    }
    return components;
  }

  /** Breadth-first from `start` back to itself, within one component. */
  #shortestCycle(start: string, members: ReadonlySet<string>): string[] {
    const previous = new Map<string, string>();
    const queue = [start];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head] as string;
      for (const target of [...(this.#edges.get(node) ?? [])].sort()) {
        if (!members.has(target)) continue;
        if (target === start) {
          const path = [start];
          for (let step: string | undefined = node; step !== undefined && step !== start; step = previous.get(step))
            path.push(step);
          return [start, ...path.slice(1).reverse(), start];
        }
        if (!previous.has(target)) {
          previous.set(target, node);
          queue.push(target);
        }
      }
    }
    return [start, start];
  }
}
