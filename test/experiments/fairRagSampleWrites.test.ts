/**
 * The pass-1 sample-item writes (issue 25): a sample's JSON is built from its arm's serialized head
 * (`samplePayloadJson`) and rows go in multi-row statements (`ExperimentsRepo.upsertItemTexts`). The
 * stored bytes must be those of `upsertItems` (JSON.stringify of each payload, one row per key, the
 * last write of a key winning), checked here on planned samples of every arm and on random items
 * (seed printed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { samplePayloadJson, type SampleJsonHead, type SamplePayload } from '../../src-main/experiments/fair-rag/items';
import { planQuery, type PlanQuery } from '../../src-main/experiments/fair-rag/plan';
import { promptRenderer } from '../../src-main/experiments/fair-rag/prompt';
import { ExperimentsRepo, type RunItem } from '../../src-main/store/experimentsRepo';
import { openWorkspace } from '../../src-main/store/workspace';

const dir = mkdtempSync(join(tmpdir(), 'fg-sample-writes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Document ids with what JSON escapes: a quote, a backslash, a control character, non-ASCII and a lone surrogate.
const ids = ['plain', 'quo"te', 'back\\slash', 'tab\there', 'ünï-😀', 'lone\ud800'];
const query: PlanQuery = {
  queryId: 'q "1"',
  text: 'Question?',
  retrievalText: 'Question?',
  task: null,
  answers: ['a'],
  metric: 'accuracy',
  lowerIsBetter: false,
  worst: null,
  candidates: ids.map((id, i) => ({ docId: id, title: '', text: `text of ${id}`, attrs: {}, useful: i % 2 === 0, provider: null })),
  scores: { 'r.1': [6, 5, 4, 3, 2, 1], r2: [1, 2, 3, 4, 5, 6] },
};
const spec = FairRagSpec.parse({
  kind: 'fair-rag',
  name: 'writes',
  collection: 'c',
  retrievers: [
    { name: 'r.1', method: 'bm25' },
    { name: 'r2', method: 'bm25' },
  ],
  generator: { model: 'm' },
  promptTemplate: '{{#documents}}[{{index}}] {{text}}\n{{/documents}}{{query}}',
  k: 3,
  samples: 7,
  alphas: [0, 0.5, 2, 1e-7],
});

describe('sample items written from their arm head', () => {
  it('builds exactly JSON.stringify of every planned sample (α arms, deterministic, oracle)', () => {
    const plan = planQuery(spec, query, promptRenderer(spec));
    const conditions = new Set(plan.samples.map((s) => s.condition));
    expect(conditions).toEqual(new Set(['r.1/alpha=0', 'r.1/alpha=0.5', 'r.1/alpha=2', 'r.1/alpha=1e-7', 'r.1/deterministic', 'r2/alpha=0', 'r2/alpha=0.5', 'r2/alpha=2', 'r2/alpha=1e-7', 'r2/deterministic', 'oracle']));
    const heads = new Map<string, SampleJsonHead>();
    for (const s of plan.samples) expect(samplePayloadJson(s.payload, s.condition, heads)).toBe(JSON.stringify(s.payload));
    expect(heads.size).toBe(conditions.size);
    // One hand-written case: the oracle's retriever and α are null.
    const oracle = plan.samples.find((s) => s.condition === 'oracle')!;
    expect(samplePayloadJson(oracle.payload, 'oracle', heads)).toBe(
      `{"type":"sample","retriever":null,"alpha":null,"policy":"oracle","ranking":${JSON.stringify(oracle.payload.ranking)},"promptHash":"${oracle.payload.promptHash}"}`,
    );
  });

  it('serializes again when a payload does not match the head kept for its condition', () => {
    const heads = new Map<string, SampleJsonHead>();
    const a: SamplePayload = { type: 'sample', retriever: 'r', alpha: 2, policy: 'pl', ranking: ['x'], promptHash: 'h' };
    const variants: SamplePayload[] = [a, { ...a, alpha: 3 }, { ...a, retriever: 's' }, { ...a, policy: 'deterministic', alpha: null }, { ...a, alpha: -0 }, a];
    for (const p of variants) expect(samplePayloadJson(p, 'same condition', heads)).toBe(JSON.stringify(p));
  });
});

describe('ExperimentsRepo.upsertItemTexts', () => {
  it('stores the same rows as upsertItems, across full statements, the remainder and keys written twice', () => {
    const seed = Math.floor(Math.random() * 2 ** 31);
    console.log(`upsertItemTexts seed ${seed}`);
    let state = seed;
    const rand = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const ws = openWorkspace(join(dir, `w${seed}.fairground`));
    try {
      const repo = new ExperimentsRepo(ws.db);
      const e = repo.createExperiment({ kind: 'fair-rag', name: 'x', spec: {} });
      const runA = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 }).id;
      const runB = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 }).id;
      const rows = (runId: number) => ws.db.prepare(`SELECT key, query_id, condition, sample, payload FROM run_items WHERE run_id = ? ORDER BY key`).all(runId);
      // Batches of 0, 1, 31, 32, 33, 64, 100 and 250 items over 40 keys: duplicates inside one batch, one statement and across batches.
      for (const size of [0, 1, 31, 32, 33, 64, 100, 250]) {
        const items: RunItem[] = Array.from({ length: size }, () => {
          const k = Math.floor(rand() * 40);
          return { key: `["s","q${k % 5}","c",${k}]`, queryId: `q${k % 5}`, condition: rand() < 0.5 ? 'c' : '', sample: rand() < 0.2 ? null : k, payload: { type: 'sample', v: rand(), s: 'é"\\' } };
        });
        repo.upsertItems(runA, items);
        repo.upsertItemTexts(
          runB,
          items.map((it) => ({ key: it.key, queryId: it.queryId, condition: it.condition, sample: it.sample, payloadJson: JSON.stringify(it.payload) })),
        );
        expect(rows(runB)).toEqual(rows(runA));
      }
      expect(rows(runA).length).toBeGreaterThan(30);
      // The last write of a key wins: a hand-checked case inside one 32-row statement.
      const dup = Array.from({ length: 32 }, (_, i) => ({ key: 'k', queryId: '', condition: '', sample: i, payloadJson: `{"i":${i}}` }));
      repo.upsertItemTexts(runB, dup);
      expect(ws.db.prepare(`SELECT sample, payload FROM run_items WHERE run_id = ? AND key = 'k'`).all(runB)).toEqual([{ sample: 31, payload: '{"i":31}' }]);
    } finally {
      ws.close();
    }
  });
});
