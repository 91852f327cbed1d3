/**
 * Batch plans, job 2 (see index.ts): export — the deferred calls of the next runnable stage as
 * OpenAI-Batch JSONL (vLLM `run-batch`, one GPU or a Ray cluster); each exported call is remembered
 * with its request lines (and a generation's prompt token count, where the server can tokenize) so
 * the results can be checked on import.
 */
import { DataError } from '../../core/errors';
import type { DeferredCall } from '../../engine/queue/callPolicy';
import { BatchRouteError, batchRequestLines, type BatchRequestLine, type BatchRoutes, type BatchSettings } from '../../engine/remote/batchCodec';
import { EngineError, type GenerateRequest } from '../../engine/types';
import type { WorkContext } from '../../experiments/registry';
import { runWithPolicy, type BatchPlanDeps, type PolicyRunOutcome } from './runPolicy';

/**
 * The OpenAI-Batch lines of every call of the run's next runnable stage that the cache cannot
 * answer. Remembers each call with its lines (for import); an empty list means the run can finish
 * from the cache. With `vllm-run-batch` routes, calls that vLLM's run-batch cannot express
 * (plain-prompt generation, scoring) refuse the whole export, counted by reason, before anything
 * is remembered or written.
 */
export async function exportPlan(deps: BatchPlanDeps, runId: number, ctx: WorkContext, routes: BatchRoutes = 'completions'): Promise<{ outcome: PolicyRunOutcome; lines: BatchRequestLine[]; calls: number }> {
  const outcome = await runWithPolicy(deps.experiments, runId, { mode: 'defer' }, ctx);
  const deferred = outcome.calls.deferred();
  const refused = new Map<string, { count: number; example: string }>();
  const exported: { call: DeferredCall; lines: BatchRequestLine[] }[] = [];
  for (const call of deferred) {
    try {
      exported.push({ call, lines: batchRequestLines(call.key, call.op, call.request, batchSettingsOf(call), routes) });
    } catch (err) {
      if (!(err instanceof BatchRouteError) && !(routes === 'vllm-run-batch' && err instanceof EngineError && err.code === 'unsupported')) throw err;
      const reason = err.message;
      const r = refused.get(reason) ?? { count: 0, example: call.key };
      r.count++;
      refused.set(reason, r);
    }
  }
  if (refused.size > 0) {
    const reasons = [...refused.entries()].map(([reason, r]) => `${r.count} call(s) (e.g. ${r.example.slice(0, 12)}…): ${reason}`);
    throw new DataError(
      `--format openai-batch writes only lines vLLM's run-batch accepts, and ${deferred.length - exported.length} of this stage's ${deferred.length} call(s) have none: ${reasons.join('; ')}. Nothing was written. What works instead: serve the model with \`vllm serve\` and add it as an endpoint pool (fairground remote add NAME --url http://HOST:8000/v1 --model M, more endpoints with fairground remote endpoints), whose /v1/completions takes raw prompts and echo scoring, then fairground run SPEC; or --format openai-batch-completions for a server that takes /v1/completions lines (llama.cpp's llama-server, a vllm serve endpoint behind an OpenAI-Batch gateway); or a spec with chat: true where its kind has it (the prompt then goes through the model's chat template: a different prompt)`,
      { field: 'format' },
    );
  }
  // Each generation's prompt counted by the server's own tokenizer, as the answer's usage will count it.
  const counts: (Record<string, number> | null)[] = [];
  for (const { call, lines } of exported) counts.push(await exportedPromptTokens(call, lines, ctx.signal));
  const now = new Date().toISOString();
  const remember = deps.db.prepare(
    `INSERT INTO batch_calls(key, model_key, op, request, lines, exported_at, prompt_tokens) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(key) DO UPDATE SET lines = excluded.lines, exported_at = excluded.exported_at, prompt_tokens = excluded.prompt_tokens`,
  );
  deps.db.transaction(() => {
    exported.forEach(({ call, lines }, i) => remember.run(call.key, call.modelKey, call.op, JSON.stringify(call.request), JSON.stringify(lines), now, counts[i] ? JSON.stringify(counts[i]) : null));
  })();
  return { outcome, lines: exported.flatMap((e) => e.lines), calls: exported.length };
}

/**
 * The prompt token count of a generation's request line as the answering server will count it
 * (`usage.prompt_tokens`), from the engine's tokenizer: a plain prompt with the beginning token the
 * server adds, a chat line of one user message through the model's chat template. Null when no
 * tokenizer counted it (an estimate proves nothing), for other operations (scoring lines echo their
 * prompt, checked on import) and for chats of several messages (no endpoint counts those).
 */
async function exportedPromptTokens(call: DeferredCall, lines: readonly BatchRequestLine[], signal: AbortSignal): Promise<Record<string, number> | null> {
  if (call.op !== 'generate' || lines.length !== 1) return null;
  const r = call.request as GenerateRequest;
  const user = r.messages?.length === 1 && r.messages[0]!.role === 'user' ? r.messages[0]!.content : undefined;
  const text = r.prompt ?? user;
  if (text === undefined) return null;
  const counted = await call.engine.tokenize({ texts: [text], asPrompt: r.prompt !== undefined ? 'text' : 'chat' }, signal);
  if (counted.source !== 'server') return null;
  return { [lines[0]!.custom_id]: counted.counts[0]! };
}

function batchSettingsOf(call: DeferredCall): BatchSettings {
  const settings = (call.engine as { batchSettings?: () => BatchSettings }).batchSettings;
  if (typeof settings !== 'function') {
    throw new DataError(`calls of '${call.modelKey}' cannot go to a batch engine: plan export needs an OpenAI-compatible (remote) model; a local model's calls run with fairground run`, { field: 'generator' });
  }
  return settings.call(call.engine);
}
