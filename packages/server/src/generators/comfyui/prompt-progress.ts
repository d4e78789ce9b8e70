/**
 * Turns one prompt's websocket messages into a fraction done. ComfyUI reports steps per node
 * (`progress` {value, max, node}), which node runs (`executing`), and which were cached; newer
 * builds also send `progress_state` {prompt_id, nodes: {id: {state, value, max, display_node_id}}}
 * (comfy_execution/progress.py WebUIProgressHandler, broadcast to every client), which names every
 * node that is running or finished, several at once where nodes run concurrently. A video model
 * spends nearly all its time in the sampler, so nodes are weighted by their class.
 */
import type { SocketMessage } from './comfyui-socket.ts';
import { progressWeight, type WorkflowGraph } from './workflow-template.ts';

export type PromptEvent = 'progress' | 'ended';

export class PromptProgress {
  private readonly weights = new Map<string, number>();
  private readonly total: number;
  private readonly done = new Set<string>();
  private current: string | undefined;
  /** Fraction done of each node that is running, by its id in our graph. */
  private readonly partials = new Map<string, number>();

  constructor(
    private readonly promptId: string,
    graph: WorkflowGraph,
  ) {
    for (const [id, node] of Object.entries(graph)) this.weights.set(id, progressWeight(node.class_type));
    this.total = [...this.weights.values()].reduce((a, b) => a + b, 0) || 1;
  }

  /** Fraction of the graph done, 0..1. */
  get fraction(): number {
    let sum = 0;
    for (const id of this.done) sum += this.weights.get(id) ?? 0;
    for (const [id, part] of this.partials) if (!this.done.has(id)) sum += (this.weights.get(id) ?? 0) * part;
    return Math.min(1, sum / this.total);
  }

  /** Applies a message; says whether it moved progress or signals that the prompt ended. */
  apply(m: SocketMessage): PromptEvent | undefined {
    const d = m.data;
    if (d.prompt_id !== undefined && d.prompt_id !== this.promptId) return undefined;
    switch (m.type) {
      case 'execution_cached':
        for (const id of Array.isArray(d.nodes) ? d.nodes : []) this.done.add(String(id));
        return 'progress';
      case 'executing':
        // `node: null` is the old end-of-prompt signal; newer builds also send execution_success.
        if (d.node === null || d.node === undefined) return d.prompt_id === this.promptId ? 'ended' : undefined;
        this.enter(String(d.node));
        return 'progress';
      case 'executed':
        if (d.node !== undefined) this.done.add(String(d.node));
        return 'progress';
      case 'progress':
        if (d.node !== undefined && d.node !== null) this.enter(String(d.node));
        if (this.current && typeof d.value === 'number' && typeof d.max === 'number' && d.max > 0)
          this.partials.set(this.current, Math.min(1, d.value / d.max));
        return 'progress';
      case 'progress_state':
        return this.applyState(d.nodes);
      case 'execution_success':
      case 'execution_error':
      case 'execution_interrupted':
        return d.prompt_id === this.promptId ? 'ended' : undefined;
      default:
        return undefined;
    }
  }

  private enter(node: string): void {
    if (node === this.current) return;
    if (this.current) this.done.add(this.current);
    this.current = node;
    this.partials.set(node, this.partials.get(node) ?? 0);
  }

  /** A node expanded into several (a subgraph, a group node) reports under the id shown for it, ours. */
  private applyState(nodes: unknown): PromptEvent | undefined {
    if (!nodes || typeof nodes !== 'object') return undefined;
    for (const [key, raw] of Object.entries(nodes as Record<string, unknown>)) {
      const n = (raw ?? {}) as { state?: unknown; value?: unknown; max?: unknown; display_node_id?: unknown };
      const id = typeof n.display_node_id === 'string' ? n.display_node_id : key;
      if (n.state === 'finished') this.done.add(id);
      else if (n.state === 'running' && typeof n.value === 'number' && typeof n.max === 'number' && n.max > 0) {
        this.partials.set(id, Math.max(this.partials.get(id) ?? 0, Math.min(1, n.value / n.max)));
      }
    }
    return 'progress';
  }
}
