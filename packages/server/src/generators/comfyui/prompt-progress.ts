/**
 * Turns one prompt's websocket messages into a fraction done. ComfyUI reports steps per node
 * (`progress` {value, max, node}), which node runs (`executing`), and which were cached; a video
 * model spends nearly all its time in the sampler, so nodes are weighted by their class.
 */
import type { SocketMessage } from './comfyui-socket.ts';
import { progressWeight, type WorkflowGraph } from './workflow-template.ts';

export type PromptEvent = 'progress' | 'ended';

export class PromptProgress {
  private readonly weights = new Map<string, number>();
  private readonly total: number;
  private readonly done = new Set<string>();
  private current: string | undefined;
  private partial = 0;

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
    if (this.current && !this.done.has(this.current)) sum += (this.weights.get(this.current) ?? 0) * this.partial;
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
        if (typeof d.value === 'number' && typeof d.max === 'number' && d.max > 0) this.partial = Math.min(1, d.value / d.max);
        return 'progress';
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
    this.partial = 0;
  }
}
