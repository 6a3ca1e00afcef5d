// The plan as a graph of its changes and their dependencies: mermaid (GitHub and GitLab render it in
// markdown) and Graphviz dot. Colour-coded by action; irreversible and traffic-breaking changes are
// marked. Bounded: past `limit` changes the rest is one "…and N more" node, so a comment stays readable.
import type { Plan, PlanAction, PlannedChange } from '../engine/plan-types.js';
import { printable } from '../util/printable.js';

/** Fill and stroke by action: the same colours in both formats. */
const colours: Record<PlanAction, { fill: string; stroke: string }> = {
  create: { fill: '#d4f7d4', stroke: '#2e7d32' },
  adopt: { fill: '#d4f1f7', stroke: '#00838f' },
  update: { fill: '#fff4c2', stroke: '#b28704' },
  replace: { fill: '#f3d9f7', stroke: '#8e24aa' },
  delete: { fill: '#fbd5d5', stroke: '#c62828' },
  wait: { fill: '#dbe6fb', stroke: '#1565c0' },
  blocked: { fill: '#e0e0e0', stroke: '#616161' },
  noop: { fill: '#ffffff', stroke: '#9e9e9e' },
};

export const defaultGraphLimit = 60;

interface GraphNode {
  id: string;
  change: PlannedChange;
  marks: string[];
}

/** What a node is marked with: irreversible, billable, and the traffic it breaks. */
function marksOf(change: PlannedChange): string[] {
  const marks: string[] = [];
  if (change.flags.irreversible) marks.push('irreversible');
  if (change.flags.billable_usd > 0) marks.push(`${change.flags.billable_usd} USD`);
  if (change.blast && change.blast.numbers > 0)
    marks.push(`breaks ${change.blast.numbers} number${change.blast.numbers === 1 ? '' : 's'}`);
  else if (change.blast || change.flags.breaks_calls || change.flags.breaks_auth) marks.push('breaks traffic');
  return marks;
}

/** The changes shown (no-ops left out), critical ones first when the plan is cut. */
function nodesOf(plan: Plan, limit: number): { nodes: GraphNode[]; hidden: number } {
  const changes = plan.changes.filter((change) => change.action !== 'noop');
  const critical = (change: PlannedChange) => marksOf(change).length > 0;
  const chosen =
    changes.length <= limit
      ? changes
      : [...changes.filter(critical), ...changes.filter((change) => !critical(change))].slice(0, limit);
  const shown = new Set(chosen);
  // In plan order (the order apply runs them), numbered so ids never depend on names.
  const nodes = changes
    .filter((change) => shown.has(change))
    .map((change, index) => ({ id: `c${index}`, change, marks: marksOf(change) }));
  return { nodes, hidden: changes.length - nodes.length };
}

function edgesOf(nodes: readonly GraphNode[]): Array<[string, string]> {
  const ids = new Map(nodes.map((node) => [node.change.address, node.id]));
  const edges: Array<[string, string]> = [];
  for (const node of nodes) {
    for (const dependency of node.change.depends_on) {
      const from = ids.get(dependency);
      if (from !== undefined) edges.push([from, node.id]);
    }
  }
  return edges;
}

/** Mermaid label text: no quotes, brackets or markup a label could end on. */
function mermaidText(text: string): string {
  return printable(text)
    .replace(/["`]/g, "'")
    .replace(/[<>[\]{}|#;]/g, ' ');
}

/**
 * `flowchart LR`: one node per change, an arrow from each change to those that wait for it, a class
 * per action (`classDef`), irreversible and traffic-breaking nodes drawn thick and dashed.
 */
export function renderMermaid(plan: Plan, limit = defaultGraphLimit): string {
  const { nodes, hidden } = nodesOf(plan, limit);
  const lines = ['flowchart LR'];
  if (nodes.length === 0) lines.push('  empty["No changes"]');
  for (const node of nodes) {
    const marks = node.marks.length > 0 ? `<br/>⚠ ${mermaidText(node.marks.join(', '))}` : '';
    lines.push(`  ${node.id}["${mermaidText(node.change.address)}<br/>${node.change.action}${marks}"]`);
  }
  for (const [from, to] of edgesOf(nodes)) lines.push(`  ${from} --> ${to}`);
  if (hidden > 0) lines.push(`  more["…and ${hidden} more changes"]`);
  const used = new Set(nodes.map((node) => node.change.action));
  for (const action of Object.keys(colours) as PlanAction[]) {
    if (!used.has(action)) continue;
    lines.push(`  classDef act_${action} fill:${colours[action].fill},stroke:${colours[action].stroke},color:#000`);
    lines.push(
      `  class ${nodes
        .filter((node) => node.change.action === action)
        .map((node) => node.id)
        .join(',')} act_${action}`,
    );
  }
  const marked = nodes.filter((node) => node.marks.length > 0).map((node) => node.id);
  if (marked.length > 0) {
    lines.push('  classDef danger stroke-width:4px,stroke-dasharray:6 3');
    lines.push(`  class ${marked.join(',')} danger`);
  }
  return `${lines.join('\n')}\n`;
}

function dotText(text: string): string {
  return printable(text).replace(/\\/g, '\\\\').replace(/"/g, '\\"');
}

/** Graphviz dot: the same graph, filled by action; irreversible and traffic-breaking nodes bold and dashed. */
export function renderDot(plan: Plan, limit = defaultGraphLimit): string {
  const { nodes, hidden } = nodesOf(plan, limit);
  const lines = [
    'digraph plan {',
    '  rankdir=LR;',
    '  node [shape=box, style="rounded,filled", fontname="Helvetica"];',
  ];
  if (nodes.length === 0) lines.push('  empty [label="No changes"];');
  for (const node of nodes) {
    const colour = colours[node.change.action];
    const label = [
      node.change.address,
      node.change.action,
      ...(node.marks.length > 0 ? [`⚠ ${node.marks.join(', ')}`] : []),
    ]
      .map(dotText)
      .join('\\n');
    const style = node.marks.length > 0 ? ', style="rounded,filled,bold,dashed", penwidth=3' : '';
    lines.push(`  ${node.id} [label="${label}", fillcolor="${colour.fill}", color="${colour.stroke}"${style}];`);
  }
  for (const [from, to] of edgesOf(nodes)) lines.push(`  ${from} -> ${to};`);
  if (hidden > 0) lines.push(`  more [label="…and ${hidden} more changes", shape=plaintext];`);
  lines.push('}');
  return `${lines.join('\n')}\n`;
}
