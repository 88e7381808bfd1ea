import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { forEachLimited } from '../../../vocab/parallel.js';

export const MULTIPART_THRESHOLD = 16 * 1024 * 1024;
const PART_SIZE = 8 * 1024 * 1024;

/**
 * Uploads a large value in parts. Completion is not conditional on every server (Ceph ignores
 * If-None-Match on it), so this is only used for keys that name their content: overwriting
 * one with the same bytes is harmless. The archive's own objects never get this large (chunks
 * are at most 256 KiB), but a value over the threshold must still be writable.
 */
export async function putMultipart(client: S3Client, bucket: string, key: string, data: Uint8Array, extra: Record<string, string>): Promise<void> {
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ...extra }));
  const parts: { PartNumber: number; ETag: string | undefined }[] = [];
  const offsets = Array.from({ length: Math.ceil(data.length / PART_SIZE) }, (_, i) => i * PART_SIZE);
  try {
    await forEachLimited(offsets, 4, async (offset, i) => {
      const body = data.subarray(offset, offset + PART_SIZE);
      const { ETag } = await client.send(
        new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: i + 1, Body: body, ContentLength: body.length }),
      );
      parts[i] = { PartNumber: i + 1, ETag };
    });
    await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
  } catch (error) {
    // Parts of an abandoned upload cost storage until aborted (or a lifecycle rule clears them).
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId })).catch(() => undefined);
    throw error;
  }
}
