/**
 * Dense retrieval with a real (tiny, random-weight) GGUF model in the local llama.cpp engine: the
 * end-to-end check that vectors from node-llama-cpp land in vec0 and come back by KNN. Semantic
 * quality is meaningless for random weights; what must hold is that a query identical to a
 * document's embedded text finds that document first (cosine 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSpec } from '../../src-main/api/contract/retrieval';
import { documentText } from '../../src-main/retrieval/dense/embedDocuments';
import { LocalEngine } from '../../src-main/engine/local/localEngine';
import { RetrievalService } from '../../src-main/services/retrievalService';
import type { Workspace } from '../../src-main/store/workspace';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../engine/support/tinyModels';
import { ZOO, addCollection, addDocuments, addQueries, openTestWorkspace } from './fixture';

let models: TinyModels;
let ws: Workspace;
let service: RetrievalService;

beforeAll(async () => {
  models = tinyModels();
  const path = await models.model(1);
  ws = openTestWorkspace();
  service = new RetrievalService(ws.db, undefined, { openEngine: async () => new LocalEngine({ modelPath: path, settings: { ...TEST_SETTINGS, sequences: 1 } }) });
});
afterAll(async () => {
  await service?.close();
  ws?.close();
  models?.cleanup();
});

describe('dense retrieval with a tiny local model', () => {
  it('embeds a collection (resumably) and retrieves a document by its own text', async () => {
    const c = addCollection(ws.db, 'zoo');
    addDocuments(ws.db, c, ZOO);
    const z3 = ZOO[2]!;
    addQueries(ws.db, c, [
      { queryId: 'same-as-z3', text: documentText(z3.title!, z3.text) },
      { queryId: 'profile', text: documentText(ZOO[4]!.title!, ZOO[4]!.text), candidates: ['z1', 'z5'] },
    ]);
    const ctx = { signal: new AbortController().signal, progress: () => {} };
    const built = await service.buildDense({ collectionId: c, model: 'tiny', metric: 'cosine', batchSize: 2 }, ctx);
    expect(built).toMatchObject({ embedded: 5, total: 5, dimensions: 64 });
    expect(await service.buildDense({ collectionId: c, model: 'tiny', metric: 'cosine', batchSize: 2 }, ctx)).toMatchObject({ embedded: 0, skipped: 5 });

    const run = await service.createRun(RunSpec.parse({ collectionId: c, method: 'dense', model: 'tiny', k: 5 }), ctx);
    const same = service.repo.results(run.id, { queryId: 'same-as-z3' });
    expect(same).toHaveLength(5);
    expect(same[0]!.docId).toBe('z3');
    expect(same[0]!.score).toBeCloseTo(1, 5);
    const profile = service.repo.results(run.id, { queryId: 'profile' });
    expect(profile.map((r) => r.docId)).toEqual(['z5', 'z1']);
  });
});
