/**
 * Issue 34 item 8b: dense retrieval fits each text to the embedding model's context, with a real
 * tiny GGUF model run by llama.cpp at context 256 and a generated collection (seeded, the seed
 * printed) in which some documents are longer than the context.
 *
 * - The limit is exact: a text of `embedLimit` tokens embeds, one token more is refused by
 *   node-llama-cpp itself.
 * - refuse (the default): the build stops before embedding anything, naming the first long document,
 *   its token count (the model's own tokenizer) and the context; no embedding set is left.
 * - cut: every document is embedded, the long ones cut to at most embedLimit tokens; the set records
 *   how many documents and tokens were cut (counted here independently), and a query equal to a cut
 *   document's kept text finds it at cosine 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunSpec } from '../../src-main/api/contract/retrieval';
import { documentText } from '../../src-main/retrieval/dense/embedDocuments';
import { LocalEngine } from '../../src-main/engine/local/localEngine';
import { RetrievalService } from '../../src-main/services/retrievalService';
import type { Workspace } from '../../src-main/store/workspace';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../engine/support/tinyModels';
import { addCollection, addDocuments, addQueries, openTestWorkspace, type DocInput } from './fixture';
import { mulberry32 } from '../support/mulberry32';

const SEED = 3407;
const CONTEXT = 256;


const WORDS = ['river', 'stone', 'garden', 'market', 'winter', 'signal', 'copper', 'harbor', 'lantern', 'orchard', 'meadow', 'engine', 'canvas', 'thunder', 'village', 'pepper'];

/** 12 documents: d01–d08 short (5–30 words), d09–d12 long (120–400 words). */
function generatedCollection(seed: number): DocInput[] {
  const rnd = mulberry32(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]!).join(' ');
  return Array.from({ length: 12 }, (_, i) => {
    const long = i >= 8;
    const n = long ? 120 + Math.floor(rnd() * 281) : 5 + Math.floor(rnd() * 26);
    return { docId: `d${String(i + 1).padStart(2, '0')}`, title: `Doc ${i + 1}`, text: words(n) };
  });
}

let models: TinyModels;
let engine: LocalEngine;
let ws: Workspace;
let service: RetrievalService;
const ctx = { signal: new AbortController().signal, progress: () => {} };

beforeAll(async () => {
  console.log(`denseOverlong: collection seed ${SEED}`);
  models = tinyModels();
  const path = await models.model(1);
  engine = new LocalEngine({ modelPath: path, settings: { ...TEST_SETTINGS, contextSize: CONTEXT, sequences: 1 } });
  ws = openTestWorkspace();
  // The service gets its own engine of the same model (it closes what it opens).
  service = new RetrievalService(ws.db, undefined, { openEngine: async () => new LocalEngine({ modelPath: path, settings: { ...TEST_SETTINGS, contextSize: CONTEXT, sequences: 1 } }) });
}, 120_000);
afterAll(async () => {
  await service?.close();
  await engine?.close();
  ws?.close();
  models?.cleanup();
});

describe('dense retrieval fits texts to the embedding context', () => {
  it('knows the exact limit: embedLimit tokens embed, one more is refused by llama.cpp', async () => {
    const probe = await engine.tokenize({ texts: ['x'] });
    expect(probe.contextSize).toBe(CONTEXT);
    const limit = probe.embedLimit!;
    // The tiny model prepends a beginning-of-sequence token and appends nothing; one position stays free.
    expect(limit).toBe(CONTEXT - 2);
    const long = generatedCollection(SEED)[11]!.text;
    const [fits, over] = await Promise.all([limit, limit + 1].map(async (n) => (await engine.tokenize({ texts: [long], maxTokens: n })).truncated![0]!));
    expect((await engine.tokenize({ texts: [fits] })).counts[0]).toBe(limit);
    expect((await engine.tokenize({ texts: [over] })).counts[0]).toBe(limit + 1);
    expect((await engine.embed({ texts: [fits] })).vectors).toHaveLength(1);
    await expect(engine.embed({ texts: [over] })).rejects.toThrow(/longer than the usable context/);
  });

  it('refuses by default before embedding anything, naming the document, its tokens and the context', async () => {
    const docs = generatedCollection(SEED);
    const c = addCollection(ws.db, 'generated-refuse');
    addDocuments(ws.db, c, docs);
    const texts = docs.map((d) => documentText(d.title!, d.text));
    const { counts, embedLimit } = await engine.tokenize({ texts });
    const over = docs.map((d, i) => ({ docId: d.docId, tokens: counts[i]! })).filter((d) => d.tokens > embedLimit!);
    expect(over.length).toBeGreaterThanOrEqual(2);
    expect(over.every((d) => d.docId >= 'd09')).toBe(true);
    const longest = over.reduce((a, b) => (b.tokens > a.tokens ? b : a));

    for (const input of [{}, { overlong: 'refuse' as const }]) {
      const err = await service.buildDense({ collectionId: c, model: 'tiny', metric: 'cosine', batchSize: 4, ...input }, ctx).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toBe(
        `document '${over[0]!.docId}' has ${over[0]!.tokens} tokens; the embedding model's context is ${CONTEXT} tokens, which holds at most ${embedLimit} tokens of text (with the tokens the model adds). ` +
          `${over.length - 1} more document${over.length - 1 === 1 ? '' : 's'} of 12 do${over.length - 1 === 1 ? 'es' : ''} not fit either (the longest: '${longest.docId}', ${longest.tokens} tokens). ` +
          'Nothing was embedded: cut the texts that do not fit to the context (overlong texts: cut), or use a model with a longer context.',
      );
    }
    expect(service.embeddingSets(c)).toEqual([]);
  });

  it('cuts to the context when asked, records what was cut, and retrieves a cut document by its kept text', async () => {
    const docs = generatedCollection(SEED);
    const c = addCollection(ws.db, 'generated-cut');
    addDocuments(ws.db, c, docs);
    const texts = docs.map((d) => documentText(d.title!, d.text));
    const { counts, embedLimit } = await engine.tokenize({ texts });
    const limit = embedLimit!;
    const over = docs.map((d, i) => ({ docId: d.docId, tokens: counts[i]! })).filter((d) => d.tokens > limit);

    const built = await service.buildDense({ collectionId: c, model: 'tiny', metric: 'cosine', batchSize: 4, overlong: 'cut' }, ctx);
    expect(built).toMatchObject({ embedded: 12, total: 12 });
    expect(built.fit).toMatchObject({ overlong: 'cut', checked: true, contextSize: CONTEXT, maxTextTokens: limit, documentsCut: over.length });
    expect(built.fit.examples.map((e) => [e.docId, e.tokens])).toEqual(over.map((d) => [d.docId, d.tokens]));
    // Kept tokens re-counted independently: each at most the limit, and the record's total cut equals Σ (whole − kept).
    const kept = built.fit.examples.map((e) => e.kept);
    expect(kept.every((k) => k <= limit && k >= limit - 2)).toBe(true);
    expect(built.fit.tokensCut).toBe(over.reduce((n, d, i) => n + d.tokens - kept[i]!, 0));
    expect(built.warnings).toEqual([
      `${over.length} documents were cut to the embedding model's context (${CONTEXT} tokens: at most ${limit} tokens of text), ${built.fit.tokensCut} tokens cut in all (e.g. ${built.fit.examples
        .slice(0, 3)
        .map((e) => `'${e.docId}' ${e.tokens} → ${e.kept}`)
        .join(', ')}); their vectors embed the beginning of the text only.`,
    ]);
    const [set] = service.embeddingSets(c);
    expect(set).toMatchObject({ vectors: 12, status: 'ready', fit: built.fit, warnings: built.warnings });

    // The stored vector of a cut document is the embedding of its kept prefix.
    const i = docs.findIndex((d) => d.docId === over[0]!.docId);
    const prefix = (await engine.tokenize({ texts: [texts[i]!], maxTokens: kept[0]! })).truncated![0]!;
    addQueries(ws.db, c, [{ queryId: 'kept-text', text: prefix }]);
    const run = await service.createRun(RunSpec.parse({ collectionId: c, method: 'dense', model: 'tiny', k: 3 }), ctx);
    expect(service.repo.run(run.id)!.params).toMatchObject({ fit: built.fit });
    const top = service.repo.results(run.id, { queryId: 'kept-text' })[0]!;
    expect(top.docId).toBe(over[0]!.docId);
    expect(top.score).toBeCloseTo(1, 5);

    // A query longer than the context is refused before any query is embedded, naming it.
    const longQuery = texts[docs.findIndex((d) => d.docId === over[0]!.docId)]!;
    const longQueryTokens = (await engine.tokenize({ texts: [longQuery] })).counts[0]!;
    addQueries(ws.db, c, [{ queryId: 'long-query', text: longQuery }]);
    await expect(service.createRun(RunSpec.parse({ collectionId: c, method: 'dense', model: 'tiny', k: 3, name: 'with-long-query' }), ctx)).rejects.toThrow(
      `query 'long-query' has ${longQueryTokens} tokens; the embedding model's context is ${CONTEXT} tokens, which holds at most ${limit} tokens of text (with the tokens the model adds). Nothing was retrieved: shorten the query, or use a model with a longer context.`,
    );
    ws.db.prepare(`DELETE FROM queries WHERE collection_id = ? AND query_id = 'long-query'`).run(c);

    // Built again: nothing to embed, the same record.
    const again = await service.buildDense({ collectionId: c, model: 'tiny', metric: 'cosine', batchSize: 4, overlong: 'cut' }, ctx);
    expect(again).toMatchObject({ embedded: 0, skipped: 12, fit: built.fit });
  });
});
