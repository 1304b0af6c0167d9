import { AdmissionGate } from '@weft/admission';

/**
 * Uploads that may wait for memory on one instance: a large upload holds its
 * reservation for seconds, so a longer queue would only keep clients waiting
 * past their timeouts; beyond it they get 503 with Retry-After.
 */
const UPLOADS_WAITING_MAX = 64;

/**
 * The bytes this process's uploads may hold in memory at once. Each upload is
 * streamed, but a multipart upload to S3 keeps its parts in memory while they
 * are sent (about 27 MiB per upload at the defaults), so 32 concurrent large
 * uploads took a gateway from 228 to 1089 MiB: past its pod's 512 MiB, where
 * the kernel ends every request the process holds. An upload reserves what it
 * can hold (its declared length, or the most any upload holds) before its body
 * is read (receive-upload.ts); one that does not fit waits, first come first
 * served, with its body left in the socket (the client's sending pauses).
 */
export function createUploadMemory(totalBytes: number): AdmissionGate {
  return new AdmissionGate(totalBytes, UPLOADS_WAITING_MAX);
}
