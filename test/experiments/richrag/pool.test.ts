/**
 * The multi-faceted retriever and the rankers that need no LLM, on hand-built lists: pool merge order
 * and aspect tags, the capacity cut, the query standing in for missing sub-aspects, RAG-Fusion's RRF,
 * the coverage ranker (the silver list of core/richrag on the shared hand-built pool), and the
 * ranking metrics with sub-answer relevance.
 */
import { describe, expect, it } from 'vitest';
import { RichRagSpec } from '../../../src-main/api/contract/richrag';
import { coverageMatrix } from '../../../src-main/core/richrag/coverage';
import { ncom } from '../../../src-main/core/richrag/silverList';
import { buildDocuments, buildPool, candidateSearcher, type Hit, type Searcher } from '../../../src-main/experiments/richrag/retrieval';
import { coverageRanking, poolOf, ragFusion, staticRanking } from '../../../src-main/experiments/richrag/rankers';
import { rankingValues, relevanceLabels } from '../../../src-main/experiments/richrag/rankingMetrics';
import type { QueryPayload } from '../../../src-main/experiments/richrag/items';
import type { DocumentRow } from '../../../src-main/store/collectionTypes';
import { DOCS, SUB_ANSWERS } from '../../core/richrag/handPool';

/** A searcher over fixed result lists, keyed by the retrieval text. */
function handSearcher(lists: Record<string, string[]>, scores: Record<string, number[]> = {}): Searcher {
  return {
    scope: 'collection',
    search: (text, n): Hit[] => (lists[text] ?? []).slice(0, n).map((id, i) => ({ id, score: scores[text]?.[i] ?? 10 - i })),
  };
}

const spec = (over: Record<string, unknown> = {}) => RichRagSpec.parse({ kind: 'richrag', name: 'x', collection: 'c', generator: { model: 'm' }, k: 3, ...over });

const LISTS = { 'Q s1': ['d0', 'd1', 'd2'], 'Q s2': ['d1', 'd3'], 'Q s3': ['d4', 'd0'], Q: ['d3', 'd2'] };

describe('multi-faceted pool', () => {
  it('merges round-robin by rank, keeps first positions, tags each document with every aspect that retrieved it', () => {
    const pool = buildPool(spec({ retrieval: { capacity: 10 } }), handSearcher(LISTS), 'Q', 'golden', ['s1', 's2', 's3']);
    expect(pool.lists.map((l) => [l.aspect, l.query, l.ids])).toEqual([
      ['s1', 'Q s1', ['d0', 'd1', 'd2']],
      ['s2', 'Q s2', ['d1', 'd3']],
      ['s3', 'Q s3', ['d4', 'd0']],
    ]);
    // rank 1: d0 (s1), d1 (s2), d4 (s3); rank 2: d1 again, d3 (s2), d0 again; rank 3: d2 (s1)
    expect(pool.pool).toEqual([
      { id: 'd0', aspects: ['s1', 's3'] },
      { id: 'd1', aspects: ['s1', 's2'] },
      { id: 'd4', aspects: ['s3'] },
      { id: 'd3', aspects: ['s2'] },
      { id: 'd2', aspects: ['s1'] },
    ]);
    expect(pool.fallback).toBe(false);
  });

  it('cuts the pool at capacity M (tags still from every list) and can merge by score', () => {
    const cut = buildPool(spec({ retrieval: { capacity: 2 } }), handSearcher(LISTS), 'Q', 'golden', ['s1', 's2', 's3']);
    expect(cut.pool).toEqual([
      { id: 'd0', aspects: ['s1', 's3'] },
      { id: 'd1', aspects: ['s1', 's2'] },
    ]);
    const byScore = buildPool(spec({ retrieval: { merge: 'score', join: 'colon' } }), handSearcher({ 'Q: a': ['x', 'y'], 'Q: b': ['z'] }, { 'Q: a': [1, 0.5], 'Q: b': [0.7] }), 'Q', 'golden', ['a', 'b']);
    expect(byScore.pool.map((e) => e.id)).toEqual(['x', 'z', 'y']);
  });

  it('retrieves with the query alone when there is no sub-aspect', () => {
    const pool = buildPool(spec(), handSearcher(LISTS), 'Q', 'predicted', []);
    expect(pool).toMatchObject({ fallback: true, aspects: ['Q'], pool: [{ id: 'd3', aspects: ['Q'] }, { id: 'd2', aspects: ['Q'] }] });
  });

  it('RAG-Fusion: RRF with k = 60 and 0-based ranks over the per-aspect lists, ties first-seen', () => {
    const pool = buildPool(spec(), handSearcher(LISTS), 'Q', 'golden', ['s1', 's2', 's3']);
    // d0 = 1/60 + 1/61 = d1 (d0 seen first), d4 = 1/60, d3 = 1/61, d2 = 1/62
    expect(ragFusion(pool, 5, { k: 60, rankBase: 0 })).toEqual(['d0', 'd1', 'd4', 'd3', 'd2']);
    expect(ragFusion(pool, 2, { k: 60, rankBase: 1 })).toEqual(['d0', 'd1']);
  });
});

describe('documents, coverage ranker and ranking metrics', () => {
  const rows: DocumentRow[] = DOCS.map((text, i) => ({ docId: `d${i}`, title: '', text, attrs: {} }));
  const get = (id: string) => rows.find((r) => r.docId === id);
  const s = spec({ k: 4, settings: ['golden'], analysis: { relevanceThreshold: 0.7 } });
  const docs = buildDocuments(s, handSearcher({ 'Q a': ['d0', 'd1', 'd2', 'd3'], Q: ['d2', 'd0', 'd3'] }), get, {
    query: 'Q',
    subAnswers: SUB_ANSWERS,
    aspects: new Map([['golden', ['a']]]),
  });

  it('stores φ(d, a_i) of every document seen (code φ: max pltrdy R1/R2/RL recall)', () => {
    const phi = coverageMatrix(SUB_ANSWERS, DOCS, 'code');
    DOCS.forEach((_, d) => expect(docs.docs[`d${d}`]!.phi).toEqual([phi[0]![d], phi[1]![d]]));
    expect(docs.plain.ids).toEqual(['d2', 'd0', 'd3']);
  });

  it('the coverage ranker is the greedy silver list of the pool: [d1, d2, d0, d3], NCOM 1', () => {
    const pool = poolOf(docs, 'golden');
    expect(coverageRanking(docs, pool, 4, 'code')).toEqual(['d1', 'd2', 'd0', 'd3']);
    expect(staticRanking(s, docs, 'coverage', 'golden')).toEqual(['d1', 'd2', 'd0', 'd3']);
    expect(staticRanking(s, docs, 'no-ranker', 'golden')).toEqual(['d0', 'd1', 'd2', 'd3']);
    expect(staticRanking(s, docs, 'retriever', null)).toEqual(['d2', 'd0', 'd3']);
    expect(staticRanking(s, docs, 'closed-book', null)).toEqual([]);
    expect(staticRanking(s, docs, 'listwise', 'golden')).toBeNull();
    const labels = relevanceLabels(s, {} as QueryPayload, docs);
    expect(rankingValues(s, labels, docs, 'coverage', 'golden', ['d1', 'd2', 'd0', 'd3']).NCOM).toBeCloseTo(1, 12);
  });

  it('relevance = number of sub-answers with φ ≥ τ; MAP and nDCG over the top k; NCOM against the pool', () => {
    const labels = relevanceLabels(s, {} as QueryPayload, docs);
    // τ = 0.7: d0 covers a1 (1), d1 a1 (3/4), d2 nothing (2/3 < 0.7), d3 nothing (1/2)
    expect(Object.fromEntries(labels)).toEqual({ d0: 1, d1: 1, d2: 0, d3: 0 });
    const v = rankingValues(s, labels, docs, 'retriever', null, ['d2', 'd0', 'd3']);
    // relevant d0 at rank 2 of R = 2: AP = (1/2)/2; nDCG@3 = (1/log2 3)/(1 + 1/log2 3)
    expect(v.MAP).toBeCloseTo(0.25, 12);
    expect(v['nDCG@1']).toBe(0);
    expect(v['nDCG@3']).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12);
    // Issue 23: 'retriever' is scored against the silver list of the common pool (every document seen, d0..d3),
    // the same COM* as every other row; with analysis.ncomPool = own, against its own list [d2, d0, d3] as before.
    const ids = Object.keys(docs.docs);
    expect([...ids].sort()).toEqual(['d0', 'd1', 'd2', 'd3']);
    const common = coverageMatrix(SUB_ANSWERS, ids.map((id) => DOCS[Number(id.slice(1))]!), 'code');
    const expected = ncom(common, ['d2', 'd0', 'd3'].map((id) => ids.indexOf(id)), 4, 'code');
    expect(v.NCOM).toBeCloseTo(expected.ncom!, 12);
    // The coverage row's COM* is the same silver list: its [d1, d2, d0, d3] reaches it (NCOM 1 above), the retriever's does not.
    expect(expected.silver.comStar).toBeCloseTo(ncom(common, [1, 2, 0, 3].map((d) => ids.indexOf(`d${d}`)), 4, 'code').silver.comStar, 15);
    const own = coverageMatrix(SUB_ANSWERS, [DOCS[2]!, DOCS[0]!, DOCS[3]!], 'code');
    const ownValue = rankingValues(spec({ k: 4, settings: ['golden'], analysis: { relevanceThreshold: 0.7, ncomPool: 'own' } }), labels, docs, 'retriever', null, ['d2', 'd0', 'd3']).NCOM;
    expect(ownValue).toBeCloseTo(ncom(own, [0, 1, 2], 4, 'code').ncom!, 12);
    expect(v.NCOM!).toBeLessThan(ownValue!);
    const fromQrels = relevanceLabels(spec({ analysis: { relevance: 'qrels' } }), { qrels: { d3: 2 } } as unknown as QueryPayload, docs);
    expect(Object.fromEntries(fromQrels)).toEqual({ d3: 2 });
  });
});

describe('candidate-set BM25', () => {
  it('retrieves only documents sharing a term, best first, ties by id descending (trec_eval order)', () => {
    const docs: DocumentRow[] = [
      { docId: 'b', title: '', text: 'compost heap green', attrs: {} },
      { docId: 'a', title: '', text: 'compost heap green', attrs: {} },
      { docId: 'c', title: 'Stars', text: 'telescope night', attrs: {} },
    ];
    const s = candidateSearcher(docs, { k1: 1.2, b: 0.75 });
    expect(s.search('compost', 10).map((h) => h.id)).toEqual(['b', 'a']);
    expect(s.search('stars telescope', 1).map((h) => h.id)).toEqual(['c']);
    expect(s.search('nothing', 10)).toEqual([]);
  });
});
