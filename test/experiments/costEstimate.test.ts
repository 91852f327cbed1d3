/**
 * Issue 26 item 2: a cost estimate prices every stage of a plan, not only the first. For each demo
 * spec (resources/demo/experiments/*.json, on the simulated reader) in a fresh workspace,
 * `run --dry-run --json` is compared with the calls the run then makes (the call cache's rows: the
 * workspace is fresh, so every row is a call of this run). Before issue 26 the estimates were
 * RichRAG 4 (the run made 106), MoI 48 (109), Fair RAG 128 (176): stage 1 only.
 * Stage 1 is exact (prompts known); later stages are marked as estimates.
 * The placeholder answers that stand in for a real model's outputs are checked on hand-made requests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { placeholderAnswer } from '../../src-main/services/batchPlans';
import { openWorkspace } from '../../src-main/store/workspace';
import { runCliCaptured } from '../support/cli';

const dir = mkdtempSync(join(tmpdir(), 'fg-cost-estimate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Estimate {
  toCompute: number;
  fromCache: number;
  complete: boolean;
  note: string;
  lines: { op: string; toCompute: number; stage?: number; estimated?: boolean }[];
  stages?: { stage: number; toCompute: number; estimated: boolean; basis: string }[];
}

function count(ws: string, sql: string): number {
  const w = openWorkspace(ws);
  try {
    return (w.db.prepare(sql).get() as { n: number }).n;
  } finally {
    w.close();
  }
}

describe('cost estimates cover every stage (demo specs, simulated reader, fresh workspace)', () => {
  // Stage-1-only figures before issue 26, and the stages each kind has after its first.
  const cases = [
    { kind: 'fair-rag', firstStageOnly: 128, laterStages: 1 },
    { kind: 'moi', firstStageOnly: 48, laterStages: 2 },
    { kind: 'richrag', firstStageOnly: 4, laterStages: 3 },
  ] as const;
  for (const c of cases) {
    it(`${c.kind}: the estimate is within 10% of the calls the run makes, later stages marked as estimates`, async () => {
      const ws = join(dir, `${c.kind}.fairground`);
      const spec = resolve('resources/demo/experiments', `${c.kind}.json`);
      const dry = await runCliCaptured(['run', spec, '--dry-run', '--json', '--workspace', ws], { cwd: dir });
      expect(dry.code, dry.stderr).toBe(0);
      const e = JSON.parse(dry.stdout) as Estimate;
      // A dry run computes and keeps nothing.
      expect(count(ws, 'SELECT count(*) AS n FROM llm_call_cache')).toBe(0);
      expect(count(ws, 'SELECT count(*) AS n FROM runs')).toBe(0);
      const run = await runCliCaptured(['run', spec, '--workspace', ws], { cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      const made = count(ws, 'SELECT count(*) AS n FROM llm_call_cache');
      // The dry run's throwaway run gave its number back: the first real run is run 1 (issue 26: consecutive run numbers).
      expect(count(ws, 'SELECT max(id) AS n FROM runs')).toBe(1);
      console.log(`${c.kind}: estimated ${e.toCompute} call(s) in ${e.stages?.length} stage(s), the run made ${made}`);
      expect(made).toBeGreaterThan(c.firstStageOnly);
      expect(Math.abs(e.toCompute - made)).toBeLessThanOrEqual(0.1 * made);
      expect(e.complete).toBe(true);
      expect(e.fromCache).toBe(0);
      // Stage 1: what the plan asks before any answer exists, exact; later stages: estimates.
      const stages = e.stages!;
      expect(stages.length).toBeGreaterThanOrEqual(1 + c.laterStages);
      expect(stages[0]).toMatchObject({ stage: 1, toCompute: c.firstStageOnly, estimated: false });
      for (const st of stages.slice(1)) expect(st).toMatchObject({ estimated: true });
      expect(stages.reduce((a, st) => a + st.toCompute, 0)).toBe(e.toCompute);
      for (const l of e.lines) expect(l.estimated).toBe((l.stage ?? 1) > 1);
      expect(e.note).toMatch(/later stages are estimates/);
      // Priced again once everything is cached: nothing left to compute, every call answered by the cache.
      const again = JSON.parse((await runCliCaptured(['run', spec, '--dry-run', '--new', '--json', '--workspace', ws], { cwd: dir })).stdout) as Estimate;
      expect(again).toMatchObject({ toCompute: 0, fromCache: made, complete: true });
    }, 300_000);
  }

  it('the text of run --dry-run shows one line per stage, later ones as estimates', async () => {
    const ws = join(dir, 'text.fairground');
    const dry = await runCliCaptured(['run', resolve('resources/demo/experiments/fair-rag.json'), '--dry-run', '--workspace', ws], { cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain("plan of 'Fair RAG demo': 176 call(s) to compute, 0 answered by the cache");
    expect(dry.stdout).toContain('stage 1: 128 call(s) (the prompts are known: exact)');
    expect(dry.stdout).toMatch(/stage 2: ≈ 48 call\(s\) \(estimated: /);
    expect(dry.stdout).toMatch(/generate \(constrained answers \(judgments, choices\)\): ≈ 48 call\(s\), ≈ \d+ prompt tokens \(estimate\)/);
  }, 300_000);
});

describe('placeholder answers for a real model (its outputs are not known before the run)', () => {
  it('a generation under a JSON schema is an instance of the schema', () => {
    const r = placeholderAnswer({ key: 'ab'.repeat(32), op: 'generate', request: { prompt: 'p', maxTokens: 8, sampling: { temperature: 0 }, jsonSchema: { type: 'object', properties: { entails: { type: 'boolean' }, choice: { enum: ['d3', 'd1'] } } } } });
    expect(r).toMatchObject({ text: '{"entails":false,"choice":"d3"}', finishReason: 'stop' });
  });
  it('a generation under a grammar of alternatives is its first literal', () => {
    const r = placeholderAnswer({ key: 'ab'.repeat(32), op: 'generate', request: { prompt: 'p', maxTokens: 8, sampling: { temperature: 0 }, grammar: 'root ::= "yes" | "no"' } });
    expect(r).toMatchObject({ text: 'yes' });
  });
  it('free generations are distinct per call (stages over distinct outputs are counted at most)', () => {
    const req = { prompt: 'p', maxTokens: 8, sampling: { temperature: 0 } };
    const a = placeholderAnswer({ key: '1'.repeat(64), op: 'generate', request: req }) as { text: string };
    const b = placeholderAnswer({ key: '2'.repeat(64), op: 'generate', request: req }) as { text: string };
    expect(a.text).not.toBe(b.text);
  });
  it('a score spells each continuation in its tokens, log-probability −1 each', () => {
    const r = placeholderAnswer({ key: 'ab'.repeat(32), op: 'score', request: { prompt: 'Documents: x', continuations: ['\nQuestion: who is it?'] } });
    expect(r).toEqual({ promptTokens: 13, scores: [{ tokens: ['\n', 'Question:', ' ', 'who', ' ', 'is', ' ', 'it?'], logprobs: [-1, -1, -1, -1, -1, -1, -1, -1], sum: -8, mean: -1 }] });
  });
});
