/**
 * Constrained LLM steps with the real llama.cpp engine on a generated tiny model (random weights, so
 * the outputs are arbitrary — exactly what a constraint must survive):
 *   - the list-wise ranker never emits an unknown or repeated id: 25 random pools of 4-8 documents,
 *     k up to 5, greedy and seeded sampling, grammar and JSON-schema constraints, windows included;
 *   - the explorer's output always parses, also when maxTokens cuts it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RichRagSpec } from '../../../src-main/api/contract/richrag';
import { createRng } from '../../../src-main/core/random/rng';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import type { ConstraintMode } from '../../../src-main/experiments/richrag/constraints';
import { explorerPrompt, explorerRequest, normalizeAspects, parseAspectList } from '../../../src-main/experiments/richrag/explorer';
import { rankListwise, windowCount, type RankerCandidate } from '../../../src-main/experiments/richrag/listwiseRanker';

let dir: string;
let engine: LocalEngine;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-richrag-constrained-'));
  const model = join(dir, 'tiny.gguf');
  await writeTinyGguf(model, { preset: 'tiny', seed: 11 });
  engine = new LocalEngine({ modelPath: model, settings: { threads: 1, gpu: false } });
});

afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

const WORDS = ['heat', 'water', 'town', 'stars', 'compost', 'bins', 'meteor', 'dark', 'green', 'night', 'old', 'people', 'park', 'leaks', 'shade'];
const ASPECTS = ['timing', 'location', 'equipment', 'safety'];
const TEMPLATE = 'Question: {{query}}\nAspects:\n{{aspects}}\nDocuments:\n{{candidates}}\nChosen: {{selected}}\nNext id: ';

describe('list-wise ranker (tiny model)', () => {
  it('never emits an unknown or repeated id over 25 random pools', async () => {
    const rng = createRng('richrag-ranker-property');
    let calls = 0;
    let windowed = 0;
    for (let p = 0; p < 25; p++) {
      const n = 4 + rng.nextInt(5);
      const k = 1 + rng.nextInt(5);
      const words = () => Array.from({ length: 2 + rng.nextInt(4) }, () => WORDS[rng.nextInt(WORDS.length)]).join(' ');
      const candidates: RankerCandidate[] = Array.from({ length: n }, (_, i) => ({
        id: `doc-${p}-${i}`,
        label: `D${i + 1}`,
        title: rng.nextInt(2) === 0 ? '' : words(),
        text: words(),
        aspects: ASPECTS.filter(() => rng.nextInt(2) === 0),
      }));
      // A window smaller than the pool now and then (it must exceed k).
      const window = rng.nextInt(3) === 0 && n > k + 1 ? k + 1 + rng.nextInt(n - k - 1) : 20;
      const mode: ConstraintMode = p % 2 === 0 ? 'grammar' : 'json-schema';
      const sampled = p % 3 !== 0;
      const seed = rng.nextUint32();
      const { ranking, steps } = await rankListwise(
        engine,
        { query: words(), aspects: ASPECTS, candidates, k },
        { template: TEMPLATE, window, docWords: 4, mode, chat: false, sampling: (w, s) => (sampled ? { temperature: 1.5, seed: (seed + 31 * w + s) >>> 0 } : { temperature: 0 }) },
      );
      const ids = new Set(candidates.map((c) => c.id));
      const context = `pool ${p}: n ${n}, k ${k}, window ${window}, ${mode}, ${sampled ? 'sampled' : 'greedy'}`;
      expect(ranking, context).toHaveLength(Math.min(k, n));
      expect(new Set(ranking).size, context).toBe(ranking.length);
      for (const id of ranking) expect(ids.has(id), context).toBe(true);
      expect(steps.filter((s) => s.fallback), context).toEqual([]);
      const windows = windowCount(n, window, k);
      expect(new Set(steps.map((s) => s.window)).size, context).toBe(windows);
      // Within a window, every step names a different document.
      for (let w = 0; w < windows; w++) {
        const picked = steps.filter((s) => s.window === w).map((s) => s.docId);
        expect(new Set(picked).size, context).toBe(picked.length);
      }
      if (windows > 1) windowed++;
      calls += steps.length;
    }
    expect(windowed).toBeGreaterThan(0);
    expect(calls).toBeGreaterThan(25);
  });
});

describe('sub-aspect explorer (tiny model)', () => {
  const base = RichRagSpec.parse({ kind: 'richrag', name: 'x', collection: 'c', generator: { model: 'm' } }).explorer;
  const questions = ['How should a small town prepare for a heatwave?', 'What does a beginner need to start stargazing?', 'How do I start composting at home?', 'What should I know before watching a meteor shower?'];

  it('always parses: complete under the grammar with the default maxTokens, repaired when cut', async () => {
    for (const [i, q] of questions.entries()) {
      const explorer = { ...base, maxAspects: 2 + i, maxChars: 12 + 4 * i };
      const complete = await engine.generate(explorerRequest(explorer, 'grammar', explorerPrompt(explorer, q)));
      const parsed = parseAspectList(complete.text);
      expect(parsed.complete, complete.text).toBe(true);
      expect(parsed.items.length).toBeLessThanOrEqual(explorer.maxAspects);
      for (const a of parsed.items) expect(a.length).toBeLessThanOrEqual(explorer.maxChars);
      expect(normalizeAspects(parsed.items, q, explorer.maxAspects).length).toBeLessThanOrEqual(explorer.maxAspects);

      const cut = await engine.generate(explorerRequest({ ...explorer, maxTokens: 8 + i }, 'grammar', explorerPrompt(explorer, q)));
      expect(() => parseAspectList(cut.text)).not.toThrow();
      expect(cut.text.startsWith('[')).toBe(true);

      const json = await engine.generate(explorerRequest({ ...explorer, maxTokens: 160 }, 'json-schema', explorerPrompt(explorer, q)));
      const fromJson = parseAspectList(json.text);
      expect(Array.isArray(fromJson.items)).toBe(true);
      if (json.finishReason === 'stop') expect(fromJson.complete, json.text).toBe(true);
    }
  });
});
