/**
 * Streaming SHA-256 of a file: the identity of a local model (cache keys, manifests), computed
 * without holding a multi-gigabyte GGUF in memory.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

export interface HashProgress {
  bytesDone: number;
  bytesTotal: number;
}

export async function sha256File(path: string, onProgress?: (p: HashProgress) => void): Promise<string> {
  const bytesTotal = (await stat(path)).size;
  const hash = createHash('sha256');
  let bytesDone = 0;
  // 4 MiB chunks: fewer callbacks on large models, and progress still moves several times a second.
  const stream = createReadStream(path, { highWaterMark: 4 << 20 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytesDone += chunk.length;
    onProgress?.({ bytesDone, bytesTotal });
  }
  if (bytesDone === 0) onProgress?.({ bytesDone, bytesTotal });
  return hash.digest('hex');
}
