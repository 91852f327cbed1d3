/**
 * Batch plans, job 3 (see index.ts): import — an OpenAI-Batch output file: every response is checked
 * against its request (custom_id, model, status, readable body, the evidence it carries), a bad line
 * refuses the whole file naming the line, and the good calls fill the cache in one transaction.
 */
import { basename } from 'node:path';
import { canonicalJson } from '../../core/canonicalJson';
import { DataError, quoteValue } from '../../core/errors';
import { resultFromBatch, type BatchRequestLine } from '../../engine/remote/batchCodec';
import { claimedByLiveRun } from '../../store/callCacheRepo';
import type { BatchPlanDeps } from './runPolicy';

interface ImportLine {
  line: number;
  key: string;
  part: number;
  body: unknown;
}

interface BatchRow {
  model_key: string;
  op: 'generate' | 'score' | 'embed';
  request: unknown;
  lines: BatchRequestLine[];
  /** Prompt tokens per custom_id as counted at export (lines whose prompt a tokenizer counted). */
  promptTokens: Record<string, number>;
}

export interface ImportReport {
  /** New cache entries. */
  calls: number;
  /** Lines read (answered or failed). */
  lines: number;
  /** Calls that still miss some of their lines. */
  incomplete: number;
  /** Calls the cache already held with the same answer. */
  alreadyHere: number;
  /** Calls of the file answered in the cache whose export record is gone (workspaces before issue 24): not compared. */
  notCompared: number;
  /** Calls the cache already held with another answer (the stored one stays). */
  disagreements: { key: string; line: number }[];
  /** Calls a live run is computing now (it withdrew the export): left to it. */
  computingElsewhere: number;
  /** Lines the batch engine answered with an error: their calls stay exported. */
  failed: { line: number; customId: string; message: string }[];
  /** Generation lines whose prompt no tokenizer counted at export: their usage.prompt_tokens proved nothing. */
  uncounted: number;
}

/**
 * Fill the cache from an OpenAI-Batch output file (vLLM run-batch's lines: `{id, custom_id,
 * response: {status_code, request_id, body} | null, error}`).
 *
 * A line that is not what its request asked for refuses the whole file, naming file:line and
 * custom_id: not JSON, a custom_id this workspace did not export, another model, or a response the
 * evidence it carries contradicts (see checkEvidence: an echoed prompt that is not the request's,
 * token counts that do not add up, more tokens than max_tokens, one prompt counted two ways, a
 * usage.prompt_tokens other than the count the server's tokenizer gave the request's prompt at
 * export).
 * A line the batch engine answered with an error is reported and its call left for the next
 * export. A call already in the cache is compared, not counted again: the same answer is "already
 * here", another answer is a disagreement reported per call (the stored answer stays). A call a
 * live `fairground run` is computing at this moment (it withdrew the export) is left to that run.
 */
export function importResults(deps: BatchPlanDeps, text: string, file: string): ImportReport {
  const name = basename(file);
  const parsed: ImportLine[] = [];
  const failed: ImportReport['failed'] = [];
  const seen = new Set<string>();
  const rows = new Map<string, BatchRow>();
  const promptTokens = new Map<string, { tokens: number; line: number; customId: string }>();
  const getRow = deps.db.prepare(`SELECT model_key, op, request, lines, prompt_tokens FROM batch_calls WHERE key = ?`);
  const lines = text.split('\n');
  let unknownDone = 0;
  let uncounted = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const at = { file, line: i + 1 };
    let obj: { custom_id?: unknown; response?: { status_code?: unknown; body?: unknown } | null; error?: unknown };
    try {
      obj = JSON.parse(raw) as typeof obj;
    } catch (err) {
      throw new DataError(`not JSON: ${(err as Error).message.split('\n')[0]}`, at);
    }
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new DataError('expected a JSON object (an OpenAI-Batch output line)', at);
    const customId = obj.custom_id;
    if (typeof customId !== 'string' || !/^[0-9a-f]{64}(#\d+)?$/.test(customId)) throw new DataError(`custom_id must be a call key exported by fairground plan export, got ${quoteValue(customId)}`, { ...at, field: 'custom_id' });
    if (seen.has(customId)) throw new DataError(`custom_id ${customId} appears twice`, { ...at, field: 'custom_id' });
    seen.add(customId);
    const id = { ...at, field: `custom_id ${customId}` };
    const [key, part] = customId.split('#') as [string, string | undefined];
    let row = rows.get(key);
    if (!row) {
      const r = getRow.get(key) as { model_key: string; op: 'generate' | 'score' | 'embed'; request: string; lines: string; prompt_tokens: string | null } | undefined;
      if (!r) {
        if (deps.cache.get(key)) {
          unknownDone++;
          continue; // imported before: nothing to do
        }
        throw new DataError(`custom_id ${customId} was not exported from this workspace (fairground plan export)`, { ...at, field: 'custom_id' });
      }
      row = { model_key: r.model_key, op: r.op, request: JSON.parse(r.request) as unknown, lines: JSON.parse(r.lines) as BatchRequestLine[], promptTokens: r.prompt_tokens ? (JSON.parse(r.prompt_tokens) as Record<string, number>) : {} };
      rows.set(key, row);
    }
    const request = row.lines.find((l) => l.custom_id === customId);
    if (!request) throw new DataError(`custom_id ${customId} is not one of the call's exported requests`, { ...at, field: 'custom_id' });
    const status = obj.response?.status_code;
    const body = obj.response?.body;
    if ((obj.error !== null && obj.error !== undefined) || status !== 200 || body === null || body === undefined) {
      failed.push({ line: i + 1, customId, message: batchErrorText(obj.error, status) });
      continue;
    }
    const model = (body as { model?: unknown }).model;
    if (typeof model === 'string' && model !== request.body.model) throw new DataError(`answered by model ${quoteValue(model)}, but the request asked for ${quoteValue(String(request.body.model))}`, { ...id, field: 'response.body.model' });
    const problem = checkEvidence(request, body);
    if (problem) throw new DataError(`${customId}: the response does not answer its request: ${problem}`, { ...at, field: 'response.body' });
    const tokens = (body as { usage?: { prompt_tokens?: unknown } }).usage?.prompt_tokens;
    const counted = row.promptTokens[customId];
    if (counted === undefined && row.op === 'generate') uncounted++;
    if (counted !== undefined && tokens !== counted) {
      const said = typeof tokens === 'number' ? `usage.prompt_tokens is ${tokens}` : 'it carries no usage.prompt_tokens';
      throw new DataError(`${customId}: the response does not answer its request: ${said}, but the request's prompt was counted ${counted} tokens at export (by the server's tokenizer)`, { ...at, field: 'response.body.usage.prompt_tokens' });
    }
    if (typeof tokens === 'number') {
      const promptId = `${request.url}\n${JSON.stringify(request.body.messages ?? request.body.prompt ?? null)}`;
      const before = promptTokens.get(promptId);
      if (before && before.tokens !== tokens) {
        throw new DataError(`${customId}: the response does not answer its request: usage.prompt_tokens is ${tokens}, but line ${before.line} (${before.customId}) sent the same prompt and was counted ${before.tokens} tokens`, { ...at, field: 'response.body.usage.prompt_tokens' });
      }
      if (!before) promptTokens.set(promptId, { tokens, line: i + 1, customId });
    }
    parsed.push({ line: i + 1, key, part: part === undefined ? 0 : Number(part), body });
  }

  // Assemble whole calls; a call with every part answered becomes a cache entry.
  const byKey = new Map<string, ImportLine[]>();
  for (const p of parsed) {
    const list = byKey.get(p.key) ?? [];
    list.push(p);
    byKey.set(p.key, list);
  }
  const failedKeys = new Set(failed.map((f) => f.customId.split('#')[0]!));
  const entries: { key: string; line: number; modelKey: string; op: 'generate' | 'score' | 'embed'; request: unknown; response: unknown }[] = [];
  let incomplete = 0;
  for (const [key, parts] of byKey) {
    const row = rows.get(key)!;
    if (parts.length < row.lines.length) {
      if (!failedKeys.has(key)) incomplete++;
      continue;
    }
    parts.sort((a, b) => a.part - b.part);
    try {
      const response = resultFromBatch(row.op, row.request, row.lines, parts.map((p) => p.body));
      entries.push({ key, line: parts[0]!.line, modelKey: row.model_key, op: row.op, request: row.request, response });
    } catch (err) {
      throw new DataError(`${key}: the response does not answer its request: ${(err as Error).message}`, { file, line: parts[0]!.line, field: 'response.body' });
    }
  }

  // One write transaction: a live run claims a call (withdrawing its export) in a transaction of
  // its own, so each call ends with exactly one answer whichever comes first.
  const report: ImportReport = { calls: 0, lines: parsed.length + failed.length, incomplete, alreadyHere: 0, notCompared: unknownDone, disagreements: [], computingElsewhere: 0, failed, uncounted };
  const stored = deps.db.prepare(`SELECT response FROM llm_call_cache WHERE key = ?`);
  const state = deps.db.prepare(`SELECT exported_at FROM batch_calls WHERE key = ?`);
  const insert = deps.db.prepare(
    `INSERT INTO llm_call_cache(key, model_key, op, request, response, created_at, duration_ms, served_by) VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
  );
  // The export records stay (a later import of the same calls is compared against the cache).
  const now = new Date().toISOString();
  deps.db.transaction(() => {
    for (const e of entries) {
      const here = stored.get(e.key) as { response: string } | undefined;
      const response = JSON.stringify(e.response);
      if (here) {
        if (sameJson(here.response, response)) report.alreadyHere++;
        else report.disagreements.push({ key: e.key, line: e.line });
        continue;
      }
      const st = state.get(e.key) as { exported_at: string } | undefined;
      if (st && claimedByLiveRun(st.exported_at)) {
        report.computingElsewhere++;
        continue;
      }
      insert.run(e.key, e.modelKey, e.op, JSON.stringify(e.request), response, now, `batch:${name}`);
      report.calls++;
    }
  }).immediate();
  return report;
}

/** The batch engine's error of a line, in one line of text. */
function batchErrorText(error: unknown, status: unknown): string {
  const inner = (error as { error?: { message?: unknown } } | null | undefined)?.error?.message ?? (error as { message?: unknown } | null | undefined)?.message;
  const text = typeof error === 'string' ? error : typeof inner === 'string' ? inner : error === null || error === undefined ? 'no response body' : JSON.stringify(error);
  return `${status === undefined || status === null ? '' : `status ${String(status)}: `}${text.replace(/\s+/g, ' ').slice(0, 300)}`;
}

/** Two stored JSON texts with the same value (key order aside). */
export function sameJson(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return canonicalJson(JSON.parse(a)) === canonicalJson(JSON.parse(b));
  } catch {
    return false;
  }
}

/**
 * What a response body says about the request it answers, checked against the request line:
 * - an echoed /completions response (scoring) must begin with the request's prompt, and its echoed
 *   tokens must be the prompt's (usage.prompt_tokens) plus the generated ones (completion_tokens);
 * - no response may report more generated tokens than the request's max_tokens.
 * A generation's body carries no echo of its prompt: only the model, the token limit and the
 * prompt-token count (the same prompt counted the same way within one file) can be checked.
 * Returns the contradiction, or null.
 */
export function checkEvidence(request: BatchRequestLine, body: unknown): string | null {
  const b = body as { choices?: { text?: unknown; logprobs?: { tokens?: unknown } | null }[]; usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } };
  const usage = b.usage;
  const completion = typeof usage?.completion_tokens === 'number' ? usage.completion_tokens : undefined;
  const maxTokens = request.body.max_tokens;
  if (completion !== undefined && typeof maxTokens === 'number' && completion > maxTokens) return `usage.completion_tokens is ${completion}, more than the request's max_tokens ${maxTokens}`;
  if (request.body.echo === true && typeof request.body.prompt === 'string') {
    const prompt = request.body.prompt;
    const choice = Array.isArray(b.choices) ? b.choices[0] : undefined;
    const text = choice?.text;
    if (typeof text !== 'string') return 'an echoed completion without text';
    if (!text.startsWith(prompt)) {
      let at = 0;
      while (at < prompt.length && text[at] === prompt[at]) at++;
      const from = Math.max(0, at - 20);
      return `the echoed prompt is not the request's (from character ${at}: the response has ${JSON.stringify(text.slice(from, at + 40))}, the request ${JSON.stringify(prompt.slice(from, at + 40))})`;
    }
    const tokens = choice?.logprobs?.tokens;
    const promptTokens = usage?.prompt_tokens;
    if (Array.isArray(tokens) && typeof promptTokens === 'number' && completion !== undefined && tokens.length !== promptTokens + completion) {
      return `${tokens.length} echoed tokens, but usage counts ${promptTokens} prompt and ${completion} generated token(s)`;
    }
  }
  return null;
}
