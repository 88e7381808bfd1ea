import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { MULTIPART_THRESHOLD, putMultipart } from '../../../src/archive/backends/s3/multipart.js';

/**
 * A value over 16 MiB goes up in 8 MiB parts (docs/remote-stores.md), numbered from 1 and completed in
 * order; an upload that fails is aborted, so its parts do not cost storage. Against a stand-in.
 */
function standIn(failPart?: number) {
  const sent: { command: string; input: Record<string, unknown> }[] = [];
  const client = {
    send: async (command: { input: Record<string, unknown> }) => {
      sent.push({ command: command.constructor.name, input: command.input });
      if (command instanceof CreateMultipartUploadCommand) return { UploadId: 'up-1' };
      if (command instanceof UploadPartCommand) {
        if (command.input.PartNumber === failPart) throw Object.assign(new Error('part lost'), { $metadata: { httpStatusCode: 500 } });
        return { ETag: `"part-${command.input.PartNumber}"` };
      }
      if (command instanceof CompleteMultipartUploadCommand || command instanceof AbortMultipartUploadCommand) return {};
      throw new Error(`unexpected ${command.constructor.name}`);
    },
  } as unknown as S3Client;
  return { client, sent };
}

const MiB = 1024 * 1024;

describe('a multipart upload', () => {
  it('sends 8 MiB parts numbered from 1, the last one shorter, and completes them in order', async () => {
    expect(MULTIPART_THRESHOLD).toBe(16 * MiB);
    const data = Buffer.alloc(20 * MiB);
    for (let i = 0; i < data.length; i += 4096) data[i] = (i / 4096) % 251;
    const { client, sent } = standIn();
    await putMultipart(client, 'team-bucket', 'dbt/big', data, { ServerSideEncryption: 'AES256' });
    expect(sent[0]).toEqual({ command: 'CreateMultipartUploadCommand', input: { Bucket: 'team-bucket', Key: 'dbt/big', ServerSideEncryption: 'AES256' } });
    const parts = sent
      .filter((s) => s.command === 'UploadPartCommand')
      .map((s) => s.input)
      .sort((a, b) => (a.PartNumber as number) - (b.PartNumber as number));
    expect(parts.map((p) => [p.PartNumber, p.ContentLength, p.UploadId, p.Key])).toEqual([
      [1, 8 * MiB, 'up-1', 'dbt/big'],
      [2, 8 * MiB, 'up-1', 'dbt/big'],
      [3, 4 * MiB, 'up-1', 'dbt/big'],
    ]);
    expect(Buffer.concat(parts.map((p) => p.Body as Uint8Array)).equals(data)).toBe(true);
    expect(sent.at(-1)).toEqual({
      command: 'CompleteMultipartUploadCommand',
      input: {
        Bucket: 'team-bucket',
        Key: 'dbt/big',
        UploadId: 'up-1',
        MultipartUpload: { Parts: [1, 2, 3].map((n) => ({ PartNumber: n, ETag: `"part-${n}"` })) },
      },
    });
  });

  it('that fails is aborted, and the failure is passed on', async () => {
    const { client, sent } = standIn(2);
    await expect(putMultipart(client, 'team-bucket', 'dbt/big', Buffer.alloc(17 * MiB), {})).rejects.toThrow('part lost');
    expect(sent.at(-1)).toEqual({ command: 'AbortMultipartUploadCommand', input: { Bucket: 'team-bucket', Key: 'dbt/big', UploadId: 'up-1' } });
    expect(sent.some((s) => s.command === 'CompleteMultipartUploadCommand')).toBe(false);
  });
});
