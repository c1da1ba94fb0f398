/**
 * The node-link view of a graph result (CONSTRUCT / DESCRIBE), drawn with cytoscape. This module
 * and cytoscape are loaded only when the view is opened (a separate chunk), so they cost nothing
 * on first load.
 */
import cytoscape from 'cytoscape';
import { short } from './examples.js';

/** One triple of a graph result. */
export interface Triple { s: string; p: string; o: string; literal: boolean }

/** Most triples drawn; a larger graph is cut (the table shows all). */
export const GRAPH_LIMIT = 500;

/** Draw `triples` into `host`; returns a disposer. */
export function drawGraph(host: HTMLElement, triples: Triple[]): () => void {
  const nodes = new Map<string, cytoscape.ElementDefinition>();
  const edges: cytoscape.ElementDefinition[] = [];
  const node = (id: string, label: string, literal: boolean) => {
    if (!nodes.has(id)) nodes.set(id, { data: { id, label }, classes: literal ? 'literal' : 'resource' });
  };
  triples.slice(0, GRAPH_LIMIT).forEach((t, i) => {
    node(`r:${t.s}`, short(t.s), false);
    const target = t.literal ? `l:${i}` : `r:${t.o}`;
    node(target, t.literal ? (t.o.length > 40 ? t.o.slice(0, 39) + '…' : t.o) : short(t.o), t.literal);
    edges.push({ data: { id: `e:${i}`, source: `r:${t.s}`, target, label: short(t.p) } });
  });
  const cy = cytoscape({
    container: host,
    elements: [...nodes.values(), ...edges],
    layout: { name: 'cose', animate: false },
    wheelSensitivity: 0.3,
    style: [
      { selector: 'node', style: { label: 'data(label)', 'font-size': 11, 'text-valign': 'center', 'text-halign': 'center', color: '#1f2328' } },
      { selector: 'node.resource', style: { 'background-color': '#b6d4fe', 'border-color': '#0a58ca', 'border-width': 1, width: 'label', height: 24, padding: '6px', shape: 'round-rectangle' } },
      { selector: 'node.literal', style: { 'background-color': '#f6f8fa', 'border-color': '#8c959f', 'border-width': 1, width: 'label', height: 20, padding: '4px', shape: 'rectangle' } },
      { selector: 'edge', style: { label: 'data(label)', 'font-size': 10, 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'line-color': '#8c959f', 'target-arrow-color': '#8c959f', 'text-background-color': '#fff', 'text-background-opacity': 1, color: '#57606a' } },
    ],
  });
  return () => cy.destroy();
}
