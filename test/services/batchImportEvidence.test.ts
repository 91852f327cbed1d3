/**
 * Issue 24 item 6, the checks one by one on hand-made lines: each response is held against its own
 * request with the evidence it carries, and a contradiction refuses the file naming file:line and
 * custom_id, importing nothing. (The swapped and same-length scoring cases against a server are in
 * test/cli/batchPlansVllm.test.ts.)
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { BatchRequestLine } from '../../src-main/engine/remote/batchCodec';
import { BatchPlanService, checkEvidence } from '../../src-main/services/batchPlans';
import type { ExperimentService } from '../../src-main/services/experimentService';
import { CallCacheRepo } from '../../src-main/store/callCacheRepo';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0002 } from '../../src-main/store/migrations/0002_engine';
import { migration0009 } from '../../src-main/store/migrations/0009_call_queue';
import { migration0011 } from '../../src-main/store/migrations/0011_call_evidence';

const K1 = '1'.repeat(64);
const K2 = '2'.repeat(64);

function setup(): { db: Database.Database; plans: BatchPlanService; cache: CallCacheRepo } {
  const db = new Database(':memory:');
  migration0001.up(db);
  migration0002.up(db);
  migration0009.up(db);
  migration0011.up(db);
  const cache = new CallCacheRepo(db);
  // importResults reads only the database: no experiment service is needed.
  return { db, plans: new BatchPlanService(db, {} as ExperimentService, cache), cache };
}

function exportCall(db: Database.Database, key: string, request: unknown, lines: BatchRequestLine[]): void {
  db.prepare(`INSERT INTO batch_calls(key, model_key, op, request, lines, exported_at) VALUES (?, 'remote:m', 'generate', ?, ?, 'now')`).run(key, JSON.stringify(request), JSON.stringify(lines));
}

const gen = (key: string, prompt: string, maxTokens: number): BatchRequestLine => ({ custom_id: key, method: 'POST', url: '/v1/completions', body: { model: 'm', prompt, max_tokens: maxTokens, temperature: 0 } });
const answer = (key: string, text: string, promptTokens: number, completionTokens: number) =>
  JSON.stringify({
    id: `vllm-${key.slice(0, 4)}`,
    custom_id: key,
    response: { status_code: 200, request_id: 'r', body: { id: 'c', object: 'text_completion', created: 1, model: 'm', choices: [{ index: 0, text, logprobs: null, finish_reason: 'length' }], usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens } } },
    error: null,
  });

describe('cache import: evidence in the response against its own request', () => {
  it('one prompt counted two ways in one file is refused, naming both lines', () => {
    const { db, plans, cache } = setup();
    exportCall(db, K1, { prompt: 'Q: lamp?', maxTokens: 4, sampling: { temperature: 0 } }, [gen(K1, 'Q: lamp?', 4)]);
    exportCall(db, K2, { prompt: 'Q: lamp?', maxTokens: 8, sampling: { temperature: 0 } }, [gen(K2, 'Q: lamp?', 8)]);
    const text = `${answer(K1, ' a b', 5, 2)}\n${answer(K2, ' a b c', 6, 3)}\n`;
    expect(() => plans.importResults(text, 'out.jsonl')).toThrow(`out.jsonl:2: response.body.usage.prompt_tokens: ${K2}: the response does not answer its request: usage.prompt_tokens is 6, but line 1 (${K1}) sent the same prompt and was counted 5 tokens`);
    expect(cache.count()).toBe(0);
    // Counted the same: both imported.
    expect(plans.importResults(`${answer(K1, ' a b', 5, 2)}\n${answer(K2, ' a b c', 5, 3)}\n`, 'out.jsonl')).toMatchObject({ calls: 2, alreadyHere: 0, disagreements: [] });
  });

  it("usage.prompt_tokens against the count the export remembered: another count is refused; a line without a count is only counted as unproven", () => {
    const { db, plans, cache } = setup();
    exportCall(db, K1, { prompt: 'Q: lamp?', maxTokens: 4, sampling: { temperature: 0 } }, [gen(K1, 'Q: lamp?', 4)]);
    exportCall(db, K2, { prompt: 'Q: a longer lamp?', maxTokens: 4, sampling: { temperature: 0 } }, [gen(K2, 'Q: a longer lamp?', 4)]);
    db.prepare(`UPDATE batch_calls SET prompt_tokens = ? WHERE key = ?`).run(JSON.stringify({ [K1]: 3 }), K1);
    expect(() => plans.importResults(`${answer(K1, ' a', 5, 1)}\n`, 'o.jsonl')).toThrow(`o.jsonl:1: response.body.usage.prompt_tokens: ${K1}: the response does not answer its request: usage.prompt_tokens is 5, but the request's prompt was counted 3 tokens at export (by the server's tokenizer)`);
    expect(cache.count()).toBe(0);
    expect(plans.importResults(`${answer(K1, ' a', 3, 1)}\n${answer(K2, ' b', 5, 1)}\n`, 'o.jsonl')).toMatchObject({ calls: 2, uncounted: 1 });
  });

  it('more generated tokens than max_tokens is refused', () => {
    const { db, plans, cache } = setup();
    exportCall(db, K1, { prompt: 'Q', maxTokens: 4, sampling: { temperature: 0 } }, [gen(K1, 'Q', 4)]);
    expect(() => plans.importResults(answer(K1, ' a b c d e', 2, 5), 'o.jsonl')).toThrow(`o.jsonl:1: response.body: ${K1}: the response does not answer its request: usage.completion_tokens is 5, more than the request's max_tokens 4`);
    expect(cache.count()).toBe(0);
  });

  it('echo: the text must begin with the prompt, and the echoed tokens must be the prompt and generated tokens usage counts', () => {
    const line: BatchRequestLine = { custom_id: `${K1}#0`, method: 'POST', url: '/v1/completions', body: { model: 'm', prompt: 'Q: lamp? A: yes', echo: true, logprobs: 1, max_tokens: 1, temperature: 0 } };
    const body = (text: string, tokens: string[], prompt: number, completion: number) => ({
      model: 'm',
      choices: [{ index: 0, text, logprobs: { tokens, token_logprobs: tokens.map(() => -1), text_offset: tokens.map(() => 0), top_logprobs: [] }, finish_reason: 'length' }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    });
    const tokens = ['<s>', 'Q:', ' lamp?', ' A:', ' yes', ' .'];
    expect(checkEvidence(line, body('Q: lamp? A: yes .', tokens, 5, 1))).toBeNull();
    expect(checkEvidence(line, body('Q: lamp? A: no .', tokens, 5, 1))).toBe(`the echoed prompt is not the request's (from character 12: the response has "Q: lamp? A: no .", the request "Q: lamp? A: yes")`);
    expect(checkEvidence(line, body('Q: lamp? A: yes .', tokens, 4, 1))).toBe('6 echoed tokens, but usage counts 4 prompt and 1 generated token(s)');
    expect(checkEvidence(line, body('Q: lamp? A: yes .', tokens, 5, 2))).toBe('usage.completion_tokens is 2, more than the request\'s max_tokens 1');
  });
});
