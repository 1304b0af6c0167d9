import type { DataType, FailureReason, NodeType, ProposedOutput } from '@weft/contracts';
import type { FfmpegTools, ImageLimits } from '@weft/media';

export type { FfmpegTools, ImageLimits };

/** What a node produces and passes downstream: the shape of a RunResult's `type` and `value`. */
export interface NodeValue {
  type: DataType;
  value: unknown;
}

/**
 * A file a node produced, before it is stored and registered as an asset:
 * its bytes, or (for anything large: video, audio) the path of a file the
 * node wrote, streamed to storage from disk.
 */
export type ProducedFile = ({ bytes: Buffer; path?: undefined } | { path: string; bytes?: undefined }) & {
  contentType: string;
  mediaType: 'image' | 'video' | 'audio' | 'file';
  extension: string;
  metadata?: Record<string, string | number | boolean | null>;
  /** The download filename (`filename` of the asset); default `<node id>-<index>.<extension>`. */
  filename?: string;
};

/** What a node knows of an asset before reading it. */
export interface AssetInfo {
  id: string;
  mediaType: 'image' | 'video' | 'audio' | 'file';
  contentType: string;
  /** The stored file's extension (`png`, `mp4`, ...). */
  extension: string;
  /** The download filename. */
  filename: string;
  sizeBytes: number;
}

/** An asset a node reads whole: images, fonts, subtitles (small files). */
export interface StoredAsset extends AssetInfo {
  bytes: Buffer;
}

/** An asset copied to a file of the node's working directory (NodeContext.workDir). */
export interface DownloadedAsset extends AssetInfo {
  path: string;
}

/**
 * Storage as a node sees it, scoped to its run. `store` is idempotent per
 * (run, node, attempt, index): executing the same attempt twice registers the
 * same asset once.
 */
export interface NodeAssets {
  /** The asset's record; UnreadableAsset when it does not exist or is not readable. */
  info(assetId: string, signal: AbortSignal): Promise<AssetInfo>;
  /** The asset's bytes in memory: for small files only. */
  read(assetId: string, signal: AbortSignal): Promise<StoredAsset>;
  /** Streams the asset to a file in the node's working directory. */
  download(assetId: string, signal: AbortSignal): Promise<DownloadedAsset>;
  /**
   * A presigned GET URL of the asset, for ffmpeg/ffprobe to read the byte
   * ranges they need (media/video.ts: protocol whitelist, reconnects).
   */
  url(assetId: string, signal: AbortSignal): Promise<{ info: AssetInfo; url: string }>;
  store(file: ProducedFile, index: number, signal: AbortSignal): Promise<string>;
  /**
   * A new asset of the run holding the same bytes as `assetId` (copied inside
   * the store, never read or re-encoded), whose download filename is
   * `filename`. Idempotent per (run, node, attempt, index) like `store`.
   */
  copy(assetId: string, filename: string, index: number, signal: AbortSignal): Promise<string>;
}

export interface NodeContext<P = Record<string, unknown>> {
  runId: string;
  /** The organization the run belongs to: provider routes look up its own credentials and routes. */
  organizationId: string;
  nodeId: string;
  nodeType: NodeType;
  attempt: number;
  /** The node's params as its type's schema parsed them (defaults applied). */
  params: P;
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
  /** ffmpeg, ffprobe and espeak-ng on this worker (FFMPEG_PATH / FFPROBE_PATH / ESPEAK_PATH). */
  tools: { ffmpeg: string; ffprobe: string; espeak: string };
  /**
   * A directory of this execution for temporary files, created on first
   * call; it is removed when the execution ends, whether it succeeded,
   * failed, timed out or was cancelled.
   */
  workDir(): Promise<string>;
  /**
   * Where the types served by provider adapters go in this deployment
   * (NODE_ROUTES and credentials): absent in a process that configured none.
   */
  routes?: NodeRoutes;
  /**
   * The provider job this attempt submitted, kept in PostgreSQL: a worker that
   * takes the attempt over after a crash resumes that job instead of paying
   * for a second one.
   */
  providerJobs: ProviderJobs;
  /**
   * Sends text the node produces as it comes (an `llm` node streaming its
   * answer) to the clients following the run, as `delta` events: never
   * stored, and lost where no one listens. The node's output is still what it
   * returns. Absent where the process carries no deltas.
   */
  emitDelta?: (text: string) => void;
}

/** A job a provider runs for a node (a queue request, a prediction, a video job). */
export interface ProviderJobRef {
  provider: string;
  /** The provider's id of the job. */
  id: string;
  /** What polling it needs besides the id (a status URL, the model it runs on). */
  state?: Record<string, unknown>;
}

/** The provider job of one node attempt (run, node, attempt). */
export interface ProviderJobs {
  /** The job an earlier execution of this attempt submitted, if any. */
  recall(): Promise<ProviderJobRef | undefined>;
  /** Records the job just submitted, before polling it. */
  remember(job: ProviderJobRef): Promise<void>;
  /**
   * Records that the provider took this attempt's cancel (the node was
   * cancelled or timed out): the workers' sweep of ended runs, which cancels
   * the jobs no one cancelled, leaves it.
   */
  canceled(): Promise<void>;
}

/** What a provider reported an execution used, in the units its prices are set in. */
export interface ProviderUsage {
  provider: string;
  model: string;
  units: Partial<Record<UsageUnit, number>>;
}

export type UsageUnit =
  'input_tokens' | 'output_tokens' | 'images' | 'megapixels' | 'seconds' | 'characters' | 'requests' | 'items';

/** A provider and model serving a node, and how to execute the node there. */
export interface NodeRoute {
  provider: string;
  model: string;
  execute(ctx: NodeContext): Promise<NodeResult>;
}

/**
 * The provider adapters of a deployment as nodes see them (ADR 0030): the
 * node types know their ports and params, the adapters how to call a provider.
 */
export interface NodeRoutes {
  /**
   * The route of a node of `type` with these params, or the setting that would
   * give it one, or `local` for a type with a local route that nothing routes
   * elsewhere; a NodeFailure when the params ask for what no deployment could give.
   */
  routeFor(
    type: NodeType,
    params: Record<string, unknown>,
    organizationId: string,
  ): Promise<NodeRoute | { missing: string } | { local: true }>;
  /**
   * Cancels at its provider a job a node attempt submitted and no one follows
   * any more (its run ended), with the credential the node would use for that
   * provider (its params' `credential_id`, else the organization's own, else
   * the deployment's). Resolves true once the provider took the cancel or has
   * nothing to cancel, false when this deployment cannot cancel it (no adapter
   * or credential for the provider, or no cancel in its API); throws what a
   * later try may get past (the provider down, refusing, timing out).
   */
  cancelJob?(job: ProviderJobRef, owner: ProviderJobOwner, signal: AbortSignal): Promise<boolean>;
}

/** Whose provider job it is: the run's organization, and the credential the node's params name. */
export interface ProviderJobOwner {
  organizationId: string;
  credentialId?: string | undefined;
}

export interface NodeResult {
  output: NodeValue;
  /** Credits this execution consumed (default 0). */
  cost?: number;
  /** What a provider reported it used, recorded with `cost` for the attempt. */
  usage?: ProviderUsage;
  /** Set by human_review: the run parks with this proposal instead of continuing. */
  review?: ProposedOutput;
  /**
   * For a type with named outputs (NodeDefinition.outputPorts): the ones that
   * carry `output`, possibly none; the nodes only the others lead to end skipped.
   */
  ports?: string[];
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

/** The asset a node named does not exist or belongs to someone else: the same failure for both. */
export class UnreadableAsset extends NodeFailure {
  constructor(assetId: string) {
    super('invalid_input', `Asset ${assetId} does not exist or is not readable`);
  }
}
