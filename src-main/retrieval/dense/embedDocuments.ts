/**
 * Embedding a collection's documents into an embedding set's vec0 table: batched, with progress,
 * cancellable between batches (finished batches stay stored) and resumable — a document whose exact
 * text is already embedded is skipped, one whose text changed is re-embedded, and vectors of
 * documents that no longer exist are removed. Running it twice embeds nothing the second time.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { deleteVectors, insertVectors, storedTextHashes, type StoredVector } from './vectorTable';

/** What embedding needs of an engine (`Engine` from engine/types fits). */
export interface Embedder {
  embed(request: { texts: string[] }, signal?: AbortSignal): Promise<{ vectors: number[][]; dimensions: number }>;
}

/**
 * The text a document is embedded (and BM25-scored in memory) as: title and text joined by one
 * space, either left out when blank — RichRAG's `f"{title} {text}"`, Fair-RAG's `title abstract`.
 */
export function documentText(title: string, text: string): string {
  return [title, text].filter((s) => s.trim() !== '').join(' ');
}

export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface DocumentToEmbed {
  documentId: number;
  text: string;
}

export interface EmbedDocumentsOptions {
  db: Database;
  embedder: Embedder;
  setId: number;
  dimensions: number;
  documents: readonly DocumentToEmbed[];
  batchSize?: number;
  signal?: AbortSignal;
  /** Documents with a current vector so far, of `total` embeddable documents. */
  onProgress?(done: number, total: number): void;
}

export interface EmbedDocumentsResult {
  /** Embedded in this call. */
  embedded: number;
  /** Already embedded with the same text. */
  skipped: number;
  /** Vectors removed (document gone or its text changed). */
  removed: number;
  /** Documents with blank title and text: nothing to embed, not retrievable densely. */
  empty: number;
  /** Documents with a current vector now. */
  total: number;
}

export async function embedDocuments(options: EmbedDocumentsOptions): Promise<EmbedDocumentsResult> {
  const { db, embedder, setId, dimensions, signal } = options;
  const batchSize = options.batchSize ?? 16;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batch size must be a positive integer, got ${batchSize}`);

  const live = new Map<number, { text: string; hash: string }>();
  let empty = 0;
  for (const d of options.documents) {
    if (d.text.trim() === '') empty++;
    else live.set(d.documentId, { text: d.text, hash: textHash(d.text) });
  }
  const stored = storedTextHashes(db, setId);
  const stale = [...stored].filter(([id, hash]) => live.get(id)?.hash !== hash).map(([id]) => id);
  deleteVectors(db, setId, stale);
  const todo = [...live].filter(([id, v]) => stored.get(id) !== v.hash).sort((a, b) => a[0] - b[0]);

  const total = live.size;
  let done = total - todo.length;
  options.onProgress?.(done, total);
  let embedded = 0;
  for (let start = 0; start < todo.length; start += batchSize) {
    signal?.throwIfAborted();
    const batch = todo.slice(start, start + batchSize);
    const result = await embedder.embed({ texts: batch.map(([, v]) => v.text) }, signal);
    if (result.vectors.length !== batch.length) throw new Error(`the model returned ${result.vectors.length} vectors for ${batch.length} texts`);
    const rows: StoredVector[] = batch.map(([documentId, v], i) => {
      const vec = result.vectors[i]!;
      if (vec.length !== dimensions) throw new Error(`the model returned a ${vec.length}-dimensional vector; this embedding set has ${dimensions} dimensions`);
      if (!vec.every(Number.isFinite)) throw new Error(`the model returned a non-finite vector for document ${documentId}`);
      return { documentId, vector: Float32Array.from(vec), textHash: v.hash };
    });
    insertVectors(db, setId, rows);
    embedded += batch.length;
    done += batch.length;
    options.onProgress?.(done, total);
  }
  return { embedded, skipped: total - todo.length, removed: stale.length, empty, total };
}
