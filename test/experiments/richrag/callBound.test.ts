/**
 * Issue 34 item 8e: RichRAG's dry run gives an upper bound on the calls beside its estimate, and the
 * bound holds — the calls a run makes (computed + answered by the cache, the run's own counters) never
 * exceed it — on the demo (`run --dry-run --json`, then `run`) and on a generated collection (seeded,
 * the seed printed: 6 queries with 1–4 golden sub-aspects, 30 documents) on the simulated reader,
 * whose explorer returns up to maxAspects sub-aspects. The window arithmetic is checked by hand.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RichRagSpec } from '../../../src-main/api/contract/richrag';
import { listwiseStepsBound, richRagCallBound } from '../../../src-main/experiments/richrag/callBound';
import { runCliCaptured } from '../../support/cli';
import { addCollection, addSim, openWorkbench, runSpec } from '../../planted/support';
import { mulberry32 } from '../../support/mulberry32';

const dir = mkdtempSync(join(tmpdir(), 'fg-richrag-bound-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));


describe('RichRAG call bound', () => {
  it('counts list-wise steps by windows (hand-computed)', () => {
    // window 7, k 3: windows read 7, then 4 new each; each window ranks min(k, its size) steps.
    expect(listwiseStepsBound(12, 3, 7)).toBe(3 * 3); // 7 | 4 | 1 new → 3 windows
    expect(listwiseStepsBound(7, 3, 7)).toBe(3);
    expect(listwiseStepsBound(8, 3, 7)).toBe(2 * 3);
    expect(listwiseStepsBound(2, 3, 7)).toBe(2);
    expect(listwiseStepsBound(0, 3, 7)).toBe(0);
  });


  it('holds on the demo: the run makes no more calls than the dry run’s bound', async () => {
    const ws = join(dir, 'demo.fairground');
    const spec = resolve('resources/demo/experiments/richrag.json');
    const dry = await runCliCaptured(['run', spec, '--dry-run', '--json', '--workspace', ws], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    const e = JSON.parse(dry.stdout) as { toCompute: number; bound: { total: number; parts: { explorer: number; ranker: number; answers: number; judge: number } } };
    const p = e.bound.parts;
    expect(Object.keys(p)).toEqual(['explorer', 'ranker', 'answers', 'judge']);
    expect(e.bound.total).toBe(p.explorer + p.ranker + p.answers + p.judge);
    const text = await runCliCaptured(['run', spec, '--dry-run', '--workspace', ws], { cwd: dir });
    expect(text.stdout).toContain(`bound: at most ${e.bound.total} LLM call(s) in all, computed or from the cache (explorer ${p.explorer}, ranker ${p.ranker}, answers ${p.answers}, judge ${p.judge})`);

    const run = await runCliCaptured(['run', spec, '--json', '--workspace', ws], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const { stats } = JSON.parse(run.stdout) as { stats: { callsComputed: number; callsFromCache: number } };
    const made = stats.callsComputed + stats.callsFromCache;
    console.log(`richrag demo: estimate ${e.toCompute}, bound ${e.bound.total}, the run made ${made} calls`);
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(e.bound.total);
    expect(e.toCompute).toBeLessThanOrEqual(e.bound.total);
  }, 300_000);

  it('holds with a real model (the tiny GGUF, llama.cpp), whose outputs the placeholder estimate does not know', async () => {
    const ws = join(dir, 'gguf.fairground');
    const spec = resolve('resources/demo/experiments/richrag-gguf.json');
    const dry = await runCliCaptured(['run', spec, '--dry-run', '--json', '--workspace', ws], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    const e = JSON.parse(dry.stdout) as { toCompute: number; bound: { total: number }; stages: Array<{ stage: number; basis: string }> };
    // A stage priced with placeholders says it is an expected count, not a bound (the API's own words, which
    // the CLI and the review step print as they are).
    expect(e.stages.filter((st) => st.stage > 1).map((st) => st.basis.split(':')[0])).toContain('expected, not a bound');
    const run = await runCliCaptured(['run', spec, '--json', '--threads', '1', '--workspace', ws], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const { stats } = JSON.parse(run.stdout) as { stats: { callsComputed: number; callsFromCache: number } };
    const made = stats.callsComputed + stats.callsFromCache;
    // The estimate is the expected count only (measured here: 93 estimated, 186 computed); the bound holds.
    console.log(`richrag tiny GGUF: estimate ${e.toCompute}, bound ${e.bound.total}, the run made ${made} calls, ${stats.callsComputed} computed`);
    expect(stats.callsComputed).toBeGreaterThan(0);
    expect(made).toBeLessThanOrEqual(e.bound.total);
  }, 300_000);

  it('holds on a generated collection with up to maxAspects predicted sub-aspects', async () => {
    const seed = 20_261_206;
    console.log(`richrag bound: generated collection seed ${seed}`);
    const rnd = mulberry32(seed);
    const topics = ['ferries', 'museum', 'markets', 'trains', 'parks', 'bakery', 'castle', 'beaches'];
    const words = ['hourly', 'tickets', 'evening', 'crowns', 'pier', 'garden', 'bread', 'tower', 'sand', 'north', 'quiet', 'early'];
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
    const docs = Array.from({ length: 30 }, (_, i) => {
      const t = pick(topics);
      return { docId: `g${i + 1}`, title: `${t} ${pick(words)}`, text: `${t} ${Array.from({ length: 8 + Math.floor(rnd() * 10) }, () => pick(words)).join(' ')}` };
    });
    const queries = Array.from({ length: 6 }, (_, i) => {
      const n = 1 + Math.floor(rnd() * 4);
      const subaspects = Array.from({ length: n }, (_, j) => ({ aspect: `${topics[(i + j) % topics.length]} ${words[(i * 3 + j) % words.length]}`, answer: `${topics[(i + j) % topics.length]} ${pick(words)} ${pick(words)}` }));
      return { queryId: `gq${i + 1}`, text: `What about ${topics[i % topics.length]}?`, answers: [subaspects.map((s) => s.answer).join('; ')], task: 'multi-aspect', metric: 'rougeL', subaspects };
    });
    const wb = openWorkbench('richrag-bound');
    try {
      addCollection(wb.services, 'generated-rich', docs, queries);
      addSim(wb.services, 'Simulated reader (generated)', { collection: 'generated-rich', bias: 'uniform', closedBookAccuracy: 0.2, noise: 0 });
      const raw = {
        kind: 'richrag',
        name: 'bound on generated',
        collection: 'generated-rich',
        generator: { model: 'Simulated reader (generated)' },
        k: 3,
        settings: ['predicted', 'golden'],
        frameworks: ['retriever', 'coverage', 'listwise'],
        explorer: { maxAspects: 4, maxChars: 40 },
        retrieval: { scope: 'auto', topN: 4, capacity: 12, merge: 'round-robin', join: 'space' },
        ranker: { window: 6 },
        judge: { enabled: true },
        preferences: { enabled: true, samples: 2 },
      };
      const bound = richRagCallBound(RichRagSpec.parse(raw), wb.services.collections.repo);
      const runId = await runSpec(wb.services, raw);
      const stats = wb.services.experiments.getRun(runId).stats as { callsComputed: number; callsFromCache: number; queries: number };
      const made = stats.callsComputed + stats.callsFromCache;
      console.log(`richrag generated: bound ${bound.total} (explorer ${bound.explorer}, ranker ${bound.ranker}, answers ${bound.answers}, judge ${bound.judge}), the run made ${made} calls`);
      expect(stats.queries).toBe(6);
      expect(bound.explorer).toBe(6);
      // 6 evaluation queries (also the training queries): 5 conditions × 6 answers + 3 US³ lists × 6 answers.
      expect(bound.answers).toBe(6 * 5 + 6 * 3);
      expect(made).toBeLessThanOrEqual(bound.total);
    } finally {
      await wb.close();
    }
  }, 300_000);
});

