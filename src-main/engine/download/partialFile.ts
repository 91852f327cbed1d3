import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { DownloadError } from './downloadError';

/** Where a download lives until it is verified: `<final>.partial`, described by `<final>.partial.json`. */
export interface DownloadPaths {
  final: string;
  partial: string;
  meta: string;
}

/**
 * What a partial file was downloaded from, so that a later run resumes only the same file:
 * the URL, and the validator (strong ETag or Last-Modified) sent back as `If-Range` — a server
 * whose file changed then answers 200 with the whole new file instead of splicing two versions.
 */
export interface PartialMeta {
  url: string;
  validator?: string;
  totalBytes?: number;
}

export function downloadPaths(finalPath: string): DownloadPaths {
  return { final: finalPath, partial: `${finalPath}.partial`, meta: `${finalPath}.partial.json` };
}

export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

export async function readMeta(path: string): Promise<PartialMeta | undefined> {
  try {
    const value = JSON.parse(await readFile(path, 'utf8')) as PartialMeta;
    return typeof value.url === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

export async function writeMeta(path: string, meta: PartialMeta): Promise<void> {
  await onDisk(path, () => writeFile(path, JSON.stringify(meta)));
}

export async function discardPartial(paths: DownloadPaths): Promise<void> {
  await rm(paths.partial, { force: true });
  await rm(paths.meta, { force: true });
}

/** The one streaming file hash (also a local model's identity). */
export { sha256File } from '../gguf/sha256File';

/** Runs a file-system step; its failure becomes a `disk` error naming the path and the errno code. */
export async function onDisk<T>(path: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason = error instanceof Error ? error.message : String(error);
    throw new DownloadError('disk', `disk error on ${path}${code ? ` (${code})` : ''}: ${reason}`);
  }
}
