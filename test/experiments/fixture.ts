/** A workspace with the demo collection and the generated tiny model, and small Fair RAG specs over it. */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createAppServices } from '../../src-main/services/appServices';
import { DEMO_COLLECTION_NAME } from '../../src-main/services/collectionsDemo';
import { DEMO_MODEL_NAME, ensureDemo } from '../../src-main/services/demoSetup';

/** Creates `dir/<name>` with the demo collection and model (threads 1) and returns its path. */
export async function makeDemoWorkspace(dir: string, name = 'demo.fairground'): Promise<string> {
  const path = join(dir, name);
  const services = createAppServices(path, { transport: 'http' });
  try {
    services.settings.update({ threads: 1 });
    await ensureDemo(services);
  } finally {
    await services.close();
  }
  return path;
}

/** Copies a closed workspace file (the model file is shared: the library stores its absolute path). */
export function copyWorkspace(from: string, to: string): string {
  copyFileSync(from, to);
  if (existsSync(`${from}-wal`)) copyFileSync(`${from}-wal`, `${to}-wal`);
  return to;
}

export function tinySpec(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    kind: 'fair-rag',
    name: 'tiny',
    collection: DEMO_COLLECTION_NAME,
    queries: ['tag-u1', 'head-u2'],
    retrievalQuery: 'lamp',
    retrievers: [
      { name: 'bm25', method: 'bm25' },
      { name: 'bm25-words', method: 'bm25', params: { tokenizer: 'words', idf: 'lucene', k1: 0.9, b: 0.4 } },
    ],
    generator: { model: DEMO_MODEL_NAME },
    decoding: { maxTokens: 8 },
    promptTemplate: '{{#documents separator=", and "}}{{text}}{{/documents}}. {{query}}',
    k: 3,
    samples: 5,
    alphas: [0, 2, 8],
    ...over,
  };
}
