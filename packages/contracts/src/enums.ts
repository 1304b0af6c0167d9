import { z } from './zod';

// The enumerations of the public API, verbatim: clients know these values, so
// one changed or removed breaks them (openapi.int.test.ts holds them fixed).

export const NODE_TYPES = [
  'text_input',
  'image_input',
  'file_input',
  'video_input',
  'audio_input',
  'brand_system_input',
  'llm',
  'image_generation',
  'video_generation',
  'text_to_speech',
  'screen_mockup',
  'remove_background',
  'upscale',
  'upscale_video',
  'video_background_removal',
  'extract_video_frame',
  'image_generation_lora',
  'change_aspect_ratio',
  'socialads_extractor',
  'image_edit',
  'vectorize',
  'image_erase',
  'professionalnetwork_ads_extractor',
  'photosocial_posts_extractor',
  'professionalnetwork_posts_extractor',
  'human_review',
  'match_brand_colors',
  'shortvideo_extractor',
  'add_logo',
  'video_subtitle',
  'video_concat',
  'video_add_sound',
  'generic_provider',
  'comment',
  'group',
  'composer',
  'cloudstorage_find_file',
  'cloudstorage_upload_file',
  'prompt_concatenate',
  'text_split',
  'list_selector',
  'video_edit',
  'router',
  'camera_angle',
  'rename_asset',
  'music_generation',
  'merge_audio_video',
  'trim_speed',
  'extract_audio',
  'remove_audio',
  'isolate_sound',
  'clone_voice',
  'translate_audio',
  'translate_video',
  'transcribe',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const FLOW_RUN_STATUSES = ['in_progress', 'completed', 'failed', 'canceled'] as const;
/** A node's statuses in a run, as its `node` events show them (docs/api.md#following-a-run-live). */
export const NODE_STATUSES = [
  'pending',
  'running',
  'waiting_review',
  'completed',
  'failed',
  'canceled',
  'skipped',
] as const;
export const FAILURE_REASONS = [
  'timeout',
  'content_policy',
  'insufficient_credits',
  'invalid_input',
  'provider_error',
  'provider_auth_required',
  'canceled',
  'unknown',
] as const;
export const DATA_TYPES = ['text', 'images', 'videos', 'files', 'audio', 'data'] as const;
/** The data types whose values are asset ids (files in storage), not text or JSON. */
export const FILE_DATA_TYPES = ['images', 'videos', 'audio', 'files'] as const;
const FILE_DATA_TYPE_SET: ReadonlySet<string> = new Set(FILE_DATA_TYPES);
export const isFileDataType = (type: string): type is (typeof FILE_DATA_TYPES)[number] => FILE_DATA_TYPE_SET.has(type);
export const APP_INPUT_TYPES = ['text', 'image', 'video', 'audio', 'brand', 'file'] as const;
export const FLOW_VISIBILITIES = ['public', 'shared', 'private'] as const;
export const APP_VISIBILITIES = ['private', 'workspace', 'shared', 'public'] as const;
export const ASSET_TYPES = ['reference', 'intermediate', 'output'] as const;
export const MEDIA_TYPES = ['image', 'video', 'audio', 'file'] as const;
export const ASSET_VISIBILITIES = ['public', 'shared', 'private'] as const;
export const MEDIA_EXTENSIONS = [
  'png',
  'jpg',
  'jpeg',
  'svg',
  'heic',
  'heif',
  'avif',
  'webp',
  'mp4',
  'wav',
  'mp3',
  'mov',
  'webm',
  'pdf',
  'docx',
  'csv',
  'txt',
  'json',
  'md',
  'ttf',
  'otf',
  'woff',
  'woff2',
] as const;
export const REVIEW_DECISIONS = ['approve', 'retry'] as const;

export const NodeTypeSchema = z.enum(NODE_TYPES).openapi('NodeType');
export const FlowRunStatusSchema = z.enum(FLOW_RUN_STATUSES).openapi('FlowRunStatus');
export const NodeStatusSchema = z.enum(NODE_STATUSES).openapi('NodeStatus');
export const FailureReasonSchema = z.enum(FAILURE_REASONS).openapi('FailureReason');
export const DataTypeSchema = z.enum(DATA_TYPES).openapi('DataType');
export const AppInputTypeSchema = z.enum(APP_INPUT_TYPES).openapi('AppInputType');
export const FlowVisibilitySchema = z.enum(FLOW_VISIBILITIES).openapi('FlowVisibility');
export const AppVisibilitySchema = z.enum(APP_VISIBILITIES).openapi('FlowApplicationVisibility');
export const AssetTypeSchema = z.enum(ASSET_TYPES).openapi('AssetType');
export const MediaTypeSchema = z.enum(MEDIA_TYPES).openapi('MediaType');
export const AssetVisibilitySchema = z.enum(ASSET_VISIBILITIES).openapi('AssetVisibility');
export const MediaExtensionSchema = z.enum(MEDIA_EXTENSIONS).openapi('MediaExtension');
export const ReviewDecisionSchema = z.enum(REVIEW_DECISIONS).openapi('ReviewDecision');

/** Node types whose node is an input of the agent (docs/api.md#flows). */
export const INPUT_NODE_TYPES = [
  'text_input',
  'image_input',
  'file_input',
  'video_input',
  'audio_input',
  'brand_system_input',
] as const satisfies readonly NodeType[];

export type FlowRunStatus = (typeof FLOW_RUN_STATUSES)[number];
export type NodeStatusName = (typeof NODE_STATUSES)[number];
export type FailureReason = (typeof FAILURE_REASONS)[number];
export type DataType = (typeof DATA_TYPES)[number];
export type AppInputType = (typeof APP_INPUT_TYPES)[number];
export type MediaType = (typeof MEDIA_TYPES)[number];
