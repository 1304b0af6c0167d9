import '@xyflow/react/dist/style.css';
import dagre from '@dagrejs/dagre';
import { Background, Position, ReactFlow, type Edge, type Node } from '@xyflow/react';
import { useMemo } from 'react';
import { NODE_STATUS_LABEL } from '../format';

export interface GraphShape {
  nodes: { id: string; type: string; description?: string | null }[];
  edges: { from: string; to: string; port: string }[];
}

export interface NodeView {
  status: string;
  error?: string | null;
  cost?: number | null;
}

const WIDTH = 190;
const HEIGHT = 64;

/** Positions from dagre (left to right), so that a flow reads in the order it runs. */
function layout(shape: GraphShape): Map<string, { x: number; y: number }> {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 56 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of shape.nodes) g.setNode(n.id, { width: WIDTH, height: HEIGHT });
  for (const e of shape.edges) g.setEdge(e.from, e.to);
  dagre.layout(g);
  return new Map(shape.nodes.map((n) => [n.id, { x: g.node(n.id).x - WIDTH / 2, y: g.node(n.id).y - HEIGHT / 2 }]));
}

/**
 * The flow of a run with each node's state. Read-only: nodes are not
 * draggable or connectable, and a text list beside it says the same for
 * screen readers (the canvas is presentation).
 */
export default function FlowGraph({ shape, states }: { shape: GraphShape; states: Map<string, NodeView> }) {
  const positions = useMemo(() => layout(shape), [shape]);
  const nodes: Node[] = shape.nodes.map((n) => {
    const status = states.get(n.id)?.status ?? 'pending';
    return {
      id: n.id,
      position: positions.get(n.id)!,
      data: {
        label: (
          <span className="graph-node">
            <strong>{n.id}</strong>
            <small>{n.type}</small>
            <em>{NODE_STATUS_LABEL[status] ?? status}</em>
          </span>
        ),
      },
      className: `node-${status}`,
      // Laid out left to right: edges leave a node's right side and enter the next one's left.
      sourcePosition: Position.Right,
      targetPosition: Position.Left,
      draggable: false,
      connectable: false,
      selectable: false,
      width: WIDTH,
      height: HEIGHT,
    };
  });
  const edges: Edge[] = shape.edges.map((e, i) => ({
    id: `${e.from}-${e.to}-${e.port}-${i}`,
    source: e.from,
    target: e.to,
    animated: states.get(e.to)?.status === 'running',
  }));
  return (
    <div className="flow-graph" aria-hidden="true">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        fitView
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        proOptions={{ hideAttribution: true }}
        minZoom={0.2}
      >
        <Background />
      </ReactFlow>
    </div>
  );
}
