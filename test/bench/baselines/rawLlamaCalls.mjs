/**
 * The baseline of the run-overhead bench (runOverhead.bench.ts): a raw node-llama-cpp loop issuing
 * given generation calls one after another, the way the engine's worker issues them
 * (src-main/engine/local/worker/generate.ts) and with the same settings — the model's own
 * tokenizer, LlamaCompletion on one sequence of a context of min(4096, the model's) tokens, batch
 * 512, greedy without repeat penalty, no context shift, the JSON-schema grammar when the call has
 * one, the sequence's history cleared after each call — and nothing else: no cache, no queue, no
 * worker process, no database.
 *
 * Usage: node rawLlamaCalls.mjs MODEL.gguf CALLS.json THREADS [GPU]
 * CALLS.json: [{ prompt, maxTokens, jsonSchema? }]. Prints `calls N, completion tokens M` and
 * `own CPU ms C` (this process alone, without node-llama-cpp's binary-test child).
 */
import { readFileSync } from 'node:fs';
import { getLlama, LlamaCompletion, LlamaLogLevel } from 'node-llama-cpp';

const [modelPath, callsFile, threadsArg, gpuArg] = process.argv.slice(2);
const threads = Number(threadsArg ?? 1);
const calls = JSON.parse(readFileSync(callsFile, 'utf8'));
const gpu = gpuArg === undefined || gpuArg === 'auto' ? 'auto' : gpuArg === 'off' ? false : gpuArg;
const llama = await getLlama({ gpu, maxThreads: threads, build: 'never', logLevel: LlamaLogLevel.warn });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: Math.min(4096, model.trainContextSize || 4096), batchSize: 512, sequences: 1, threads });
const sequence = context.getSequence();
const grammars = new Map();
let tokens = 0;
for (const call of calls) {
  let grammar;
  if (call.jsonSchema !== undefined) {
    const key = JSON.stringify(call.jsonSchema);
    grammar = grammars.get(key);
    if (!grammar) grammars.set(key, (grammar = await llama.createGrammarForJsonSchema(call.jsonSchema)));
  }
  const input = model.tokenize(call.prompt, false);
  const generated = [];
  const completion = new LlamaCompletion({ contextSequence: sequence });
  await completion.generateCompletionWithMeta(input, {
    maxTokens: call.maxTokens,
    temperature: 0,
    repeatPenalty: false,
    disableContextShift: true,
    ...(grammar ? { grammar } : {}),
    onToken: (t) => generated.push(...t),
  });
  model.detokenize(generated, false, input.slice(-8));
  tokens += generated.length;
  completion.dispose({ disposeSequence: false });
  await sequence.clearHistory();
}
await context.dispose();
await model.dispose();
await llama.dispose();
// This process's own CPU: the rest of the process tree's is node-llama-cpp's binary self-test (its one child).
const own = process.resourceUsage();
process.stdout.write(`calls ${calls.length}, completion tokens ${tokens}\nown CPU ms ${Math.round((own.userCPUTime + own.systemCPUTime) / 1000)}\n`);
