import type { DataType, FailureReason, NodeType, ProposedOutput } from '@weft/contracts';
import type { ImageLimits } from '@weft/media';

export type { ImageLimits };

/** What a node produces and passes downstream: the shape of a RunResult's `type` and `value`. */
export interface NodeValue {
  type: DataType;
  value: unknown;
}

/** A file a node produced, before it is stored and registered as an asset. */
export interface ProducedFile {
  bytes: Buffer;
  contentType: string;
  mediaType: 'image' | 'video' | 'audio' | 'file';
  extension: string;
  metadata?: Record<string, string | number | boolean | null>;
}

/** An asset a node reads. */
export interface StoredAsset {
  id: string;
  mediaType: 'image' | 'video' | 'audio' | 'file';
  contentType: string;
  bytes: Buffer;
}

/**
 * Storage as a node sees it, scoped to its run. `store` is idempotent per
 * (run, node, attempt, index): executing the same attempt twice registers the
 * same asset once.
 */
export interface NodeAssets {
  read(assetId: string, signal: AbortSignal): Promise<StoredAsset>;
  store(file: ProducedFile, index: number, signal: AbortSignal): Promise<string>;
}

export interface NodeContext {
  runId: string;
  nodeId: string;
  nodeType: NodeType;
  attempt: number;
  params: Record<string, unknown>;
  /** Port name → the upstream node's value (a list when the port lists several nodes). */
  inputs: Record<string, NodeValue | NodeValue[]>;
  /** For `*_input` nodes: the value given at run creation, undefined when the optional input was omitted. */
  runInput: unknown;
  /** Aborted when the run is cancelled or the node's timeout passes: stop work and release resources. */
  signal: AbortSignal;
  assets: NodeAssets;
  /** Destinations outbound requests may reach despite the address rules (OUTBOUND_ALLOWED_HOSTS). */
  outboundAllowList: readonly string[];
  /** What a node that decodes images may decode (ASSET_MAX_IMAGE_PIXELS, as for uploads). */
  imageLimits: ImageLimits;
}

export interface NodeResult {
  output: NodeValue;
  /** Credits this execution consumed (default 0). */
  cost?: number;
  /** Set by human_review: the run parks with this proposal instead of continuing. */
  review?: ProposedOutput;
}

/**
 * `light` nodes wait on I/O (provider calls, bookkeeping) and run many at a
 * time; `heavy` nodes process media and run on their own queue with a small
 * concurrency, so one kind never starves the other.
 */
export type NodeKind = 'light' | 'heavy';

export interface NodeExecutor {
  type: NodeType;
  kind: NodeKind;
  /**
   * Pure and immediate: computes its output from its inputs and params alone,
   * with no I/O and nothing to abort, the same output every time. The worker
   * that makes such a node ready executes it at once instead of sending it
   * through the queue, and commits it with the node that made it ready
   * (ADR 0013); it may execute it again when that commit misses. Never set it
   * on a node that calls out, reads storage, costs credits or takes noticeable time.
   */
  instant?: boolean;
  /** Used when the node's `params.timeout_ms` is absent. */
  defaultTimeoutMs: number;
  /**
   * The most `params.timeout_ms` may ask for: a flow asking more is refused
   * when it is published. At most MAX_NODE_TIMEOUT_MS (@weft/contracts).
   */
  maxTimeoutMs: number;
  execute(ctx: NodeContext): Promise<NodeResult>;
}

/** A failure the run reports as is: `message` is shown to the caller, so it must be safe to show. */
export class NodeFailure extends Error {
  constructor(
    readonly reason: FailureReason,
    message: string,
  ) {
    super(message);
    this.name = 'NodeFailure';
  }
}
