/**
 * Issue 26, "Removing the duplicate-custom_id check in services/batchPlans.ts fails no test": one custom_id answered
 * on two lines (even with the same answer) is refused, naming the second line, and nothing is imported.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BatchPlanService } from '../../src-main/services/batchPlans';
import type { ExperimentService } from '../../src-main/services/experimentService';
import { CallCacheRepo } from '../../src-main/store/callCacheRepo';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0002 } from '../../src-main/store/migrations/0002_engine';
import { migration0009 } from '../../src-main/store/migrations/0009_call_queue';
import { migration0011 } from '../../src-main/store/migrations/0011_call_evidence';

const K1 = '1'.repeat(64);
const K2 = '2'.repeat(64);

const answer = (key: string, text: string) =>
  JSON.stringify({
    id: `vllm-${key.slice(0, 4)}`,
    custom_id: key,
    response: { status_code: 200, request_id: 'r', body: { id: 'c', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text, logprobs: null, finish_reason: 'length' }], usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 } } },
    error: null,
  });

describe('cache import: one custom_id on two lines', () => {
  it('is refused at the second line (same or another answer), and nothing is imported', () => {
    const db = new Database(':memory:');
    migration0001.up(db);
    migration0002.up(db);
    migration0009.up(db);
    migration0011.up(db);
    const cache = new CallCacheRepo(db);
    // importResults reads only the database: no experiment service is needed.
    const plans = new BatchPlanService(db, {} as ExperimentService, cache);
    for (const [key, prompt] of [
      [K1, 'Q: one?'],
      [K2, 'Q: two?'],
    ] as const) {
      const line = { custom_id: key, method: 'POST', url: '/v1/completions', body: { model: 'm', prompt, max_tokens: 4, temperature: 0 } };
      db.prepare(`INSERT INTO batch_calls(key, model_key, op, request, lines, exported_at) VALUES (?, 'remote:m', 'generate', ?, ?, 'now')`).run(
        key,
        JSON.stringify({ prompt, maxTokens: 4, sampling: { temperature: 0 } }),
        JSON.stringify([line]),
      );
    }
    const same = `${answer(K1, ' a b')}\n${answer(K2, ' c d')}\n${answer(K1, ' a b')}\n`;
    expect(() => plans.importResults(same, 'out.jsonl')).toThrow(`out.jsonl:3: custom_id: custom_id ${K1} appears twice`);
    const other = `${answer(K1, ' a b')}\n${answer(K1, ' x y')}\n`;
    expect(() => plans.importResults(other, 'out.jsonl')).toThrow(`out.jsonl:2: custom_id: custom_id ${K1} appears twice`);
    expect(cache.count()).toBe(0);
    // The file without the repeated line imports both calls.
    expect(plans.importResults(`${answer(K1, ' a b')}\n${answer(K2, ' c d')}\n`, 'out.jsonl')).toMatchObject({ calls: 2, disagreements: [] });
  });
});
