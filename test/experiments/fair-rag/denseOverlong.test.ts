/**
 * Issue 34 item 8b for Fair RAG's dense retriever: every text is fitted to the embedding model's
 * context before anything is embedded (retrieval/dense/fitTexts.ts), as `retrieve --method dense`
 * does. A real tiny GGUF run by llama.cpp at context 256 embeds, through the workspace's call cache
 * (real SQLite), two queries whose candidates include documents longer than the context (seeded,
 * the seed printed).
 *
 * - default (params.overlong absent) and 'refuse': the scoring stops before any embedding call,
 *   naming the retriever, the first long document, its token count (the model's own tokenizer,
 *   counted here independently), the context and the spec field that cuts;
 * - 'cut': every candidate is scored; a long document's score is the cosine of the query with the
 *   document's longest prefix that fits (embedded here independently), and the record says how
 *   many documents were cut;
 * - a query longer than the context is refused whatever overlong says (a query is never cut).
 * - node-llama-cpp's own refusal (no document named) is what the run gave before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairRagSpec, type FairRagRetriever } from '../../../src-main/api/contract/fairRag';
import type { GeneratorRef } from '../../../src-main/api/contract/models';
import { similarity } from '../../../src-main/core/retrieval/exactKnn';
import { CachedEngine } from '../../../src-main/engine/callCache';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import type { QueryData } from '../../../src-main/experiments/fair-rag/data';
import { scoreRetrievers } from '../../../src-main/experiments/fair-rag/retrievers';
import { utilityScorer } from '../../../src-main/experiments/fair-rag/utility';
import { documentText } from '../../../src-main/retrieval/dense/embedDocuments';
import { CallCacheRepo } from '../../../src-main/store/callCacheRepo';
import { openWorkspace, type Workspace } from '../../../src-main/store/workspace';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../../engine/support/tinyModels';
import { mulberry32 } from '../../support/mulberry32';

const SEED = 20261206;
const CONTEXT = 256;
const WORDS = ['river', 'stone', 'garden', 'market', 'winter', 'signal', 'copper', 'harbor', 'lantern', 'orchard', 'meadow', 'engine', 'canvas', 'thunder', 'village', 'pepper'];


const scorer = (() => {
  const s = utilityScorer({}, 'accuracy');
  if ('error' in s) throw new Error(s.error);
  return s;
})();

/** Two queries of 4 candidates each; d3 (in both) and d6 are 200–400 words, longer than the context. */
function queries(seed: number, queryWords = 4): QueryData[] {
  const rnd = mulberry32(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]!).join(' ');
  const doc = (docId: string, long: boolean) => ({ docId, title: `Doc ${docId}`, text: words(long ? 200 + Math.floor(rnd() * 201) : 5 + Math.floor(rnd() * 20)), attrs: {}, useful: false, provider: null });
  const d = Object.fromEntries(['d1', 'd2', 'd3', 'd4', 'd5', 'd6'].map((id) => [id, doc(id, id === 'd3' || id === 'd6')]));
  const q = (queryId: string, ids: string[]): QueryData => ({ queryId, text: words(queryWords), retrievalText: words(queryWords), answers: ['x'], task: null, candidates: ids.map((id) => d[id]!), scorer });
  return [q('q1', ['d1', 'd2', 'd3', 'd4']), q('q2', ['d5', 'd3', 'd6', 'd2'])];
}

let models: TinyModels;
let ws: Workspace;
let local: LocalEngine;
let engine: CachedEngine;
const embedCalls = () => (ws.db.prepare(`SELECT COUNT(*) AS n FROM llm_call_cache WHERE op = 'embed'`).get() as { n: number }).n;

function deps() {
  return {
    resolveGenerator: () => ({ kind: 'local', model: 'tiny' }) as unknown as GeneratorRef,
    engineFor: () => engine,
    retrievalRuns: { run: () => undefined, results: () => [] },
  };
}

const dense = (overlong?: 'cut' | 'refuse'): FairRagRetriever => ({ name: 'dense', method: 'dense', params: { model: 'tiny', metric: 'cosine', ...(overlong ? { overlong } : {}) } });

beforeAll(async () => {
  console.log(`fair-rag denseOverlong: collection seed ${SEED}`);
  models = tinyModels();
  local = new LocalEngine({ modelPath: await models.model(1), settings: { ...TEST_SETTINGS, contextSize: CONTEXT, sequences: 1 } });
  ws = openWorkspace(':memory:');
  engine = new CachedEngine(local, new CallCacheRepo(ws.db));
}, 120_000);
afterAll(async () => {
  await local?.close();
  ws?.close();
  models?.cleanup();
});

describe("Fair RAG's dense retriever fits texts to the embedding context", () => {
  it('the spec takes overlong: cut | refuse, optional with no default (older specs keep their form)', () => {
    const base = { kind: 'fair-rag', name: 'd', collection: 'c', generator: { model: 'g' }, k: 1, samples: 2, alphas: [1] };
    const parsed = FairRagSpec.parse({ ...base, retrievers: [{ name: 'dense', method: 'dense', params: { model: 'tiny' } }] });
    expect(parsed.retrievers[0]!.params).toEqual({ model: 'tiny', metric: 'cosine' });
    expect(FairRagSpec.parse({ ...base, retrievers: [dense('cut')] }).retrievers[0]!.params).toMatchObject({ overlong: 'cut' });
    const bad = FairRagSpec.safeParse({ ...base, retrievers: [{ name: 'dense', method: 'dense', params: { model: 'tiny', overlong: 'chop' } }] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['retrievers', 0, 'params', 'overlong']);
  });

  it('refuses by default before embedding anything, naming the retriever, the document, its tokens and the context', async () => {
    const qs = queries(SEED);
    const ids = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6'];
    const texts = Object.fromEntries(qs.flatMap((q) => q.candidates).map((c) => [c.docId, documentText(c.title, c.text)]));
    const { counts, embedLimit } = await local.tokenize({ texts: ids.map((id) => texts[id]!) });
    const tokens = Object.fromEntries(ids.map((id, i) => [id, counts[i]!]));
    expect(embedLimit).toBe(CONTEXT - 2);
    expect(ids.filter((id) => tokens[id]! > embedLimit!)).toEqual(['d3', 'd6']);
    const longest = tokens.d3! >= tokens.d6! ? 'd3' : 'd6';
    for (const overlong of [undefined, 'refuse' as const]) {
      const err = await scoreRetrievers({ retrievers: [dense(overlong)] }, qs, deps()).then(
        () => undefined,
        (e: unknown) => e as Error & { field?: string; reason?: string },
      );
      expect(err?.message).toBe(`retrievers[0].params.overlong: ${err?.reason}`);
      expect(err?.reason).toBe(
        `dense retriever 'dense': document 'd3' has ${tokens.d3} tokens; the embedding model's context is ${CONTEXT} tokens, which holds at most ${embedLimit} tokens of text (with the tokens the model adds). ` +
          `1 more document of 6 does not fit either (the longest: '${longest}', ${tokens[longest]} tokens). ` +
          "Nothing was embedded: cut the texts that do not fit to the context (retrievers[0].params.overlong: 'cut'), or use a model with a longer context.",
      );
      expect(err?.field).toBe('retrievers[0].params.overlong');
    }
    expect(embedCalls()).toBe(0);
    // What the same texts gave before (engine.embed directly): llama.cpp's refusal, naming no document.
    await expect(local.embed({ texts: [qs[0]!.retrievalText, texts.d3!] })).rejects.toThrow(/longer than the usable context/);
  }, 120_000);

  it("cuts to the context when the spec says so: the long document's score is that of its longest prefix that fits", async () => {
    const qs = queries(SEED);
    const { scores, embeddingFit, warnings } = await scoreRetrievers({ retrievers: [dense('cut')] }, qs, deps());
    expect(embeddingFit!.dense).toMatchObject({ overlong: 'cut', checked: true, contextSize: CONTEXT, maxTextTokens: CONTEXT - 2, documentsCut: 2 });
    expect(embeddingFit!.dense!.examples.map((e) => e.docId)).toEqual(['d3', 'd6']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^dense retriever 'dense': 2 documents were cut to the embedding model's context \(256 tokens: at most 254 tokens of text\)/);
    // Independently: q1's query and d3 cut to 254 tokens, embedded as they are.
    const q1 = qs[0]!;
    const d3 = q1.candidates[2]!;
    const cut = (await local.tokenize({ texts: [documentText(d3.title, d3.text)], maxTokens: CONTEXT - 2 })).truncated![0]!;
    expect((await local.tokenize({ texts: [cut] })).counts[0]).toBeLessThanOrEqual(CONTEXT - 2);
    const [qv, dv] = (await local.embed({ texts: [q1.retrievalText, cut] })).vectors;
    const got = scores.get('dense')!.get('q1')!;
    expect(got).toHaveLength(4);
    expect(got[2]).toBeCloseTo(similarity(qv!, dv!, 'cosine'), 6);
    // A short document is embedded whole.
    const d1 = q1.candidates[0]!;
    const [qv1, d1v] = (await local.embed({ texts: [q1.retrievalText, documentText(d1.title, d1.text)] })).vectors;
    expect(got[0]).toBeCloseTo(similarity(qv1!, d1v!, 'cosine'), 6);
    expect(scores.get('dense')!.get('q2')).toHaveLength(4);
  }, 120_000);

  it('refuses a query longer than the context whatever overlong says', async () => {
    const qs = queries(SEED, 400);
    const err = await scoreRetrievers({ retrievers: [dense('cut')] }, qs, deps()).then(
      () => undefined,
      (e: unknown) => e as Error & { field?: string; reason?: string },
    );
    expect(err?.reason).toMatch(/^dense retriever 'dense': query 'q1' has \d+ tokens; the embedding model's context is 256 tokens, .*Nothing was retrieved: shorten the query, or use a model with a longer context\.$/);
    expect(err?.field).toBe('retrievers[0].params.model');
  }, 120_000);
});
