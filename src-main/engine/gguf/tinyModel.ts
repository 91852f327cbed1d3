/**
 * Tiny llama-architecture GGUF models with seeded random weights, so tests and benchmarks run the
 * real llama.cpp without downloading anything.
 *
 * - `tiny`: 2 layers, width 64, vocab 1024, F16 (~230K parameters, ~0.5 MB): for tests.
 * - `bench`: 12 layers, width 768, FF 2048, vocab 16384, Q8_0 (~110M parameters, ~117 MB): a
 *   realistic shape for throughput measurements.
 *
 * Weights are uniform with a variance chosen so activations stay O(1) (embeddings 1, projections
 * 1/fan-in) and logits have a standard deviation of about 3, which makes greedy choices clear-cut
 * rather than near-ties. The output rows of control, unknown and byte tokens are zero, so their
 * logit is exactly 0 while hundreds of text tokens score above it: greedy output is always
 * printable text and never ends by itself (an end-of-generation token is never the argmax) — a
 * generation runs to `maxTokens` unless a stop string or a grammar ends it, which tests rely on.
 */
import { createRng, type Rng } from '../../core/random/rng';
import { GgmlType, GgufValueType } from './ggufFormat';
import { kv, writeGguf, type GgufKvValue, type GgufSpec, type GgufTensorSpec, type GgufWriteOptions } from './ggufWriter';
import { IM_END, IM_START, buildTinyVocab, type TinyVocab } from './tinyVocab';

export type TinyPreset = 'tiny' | 'bench';

export interface TinyShape {
  layers: number;
  embedding: number;
  heads: number;
  headsKv: number;
  feedForward: number;
  vocab: number;
  contextLength: number;
  /** Storage type of the 2-D weight matrices (norms are always F32). */
  weightType: GgmlType;
}

export const TINY_PRESETS: Record<TinyPreset, TinyShape> = {
  tiny: { layers: 2, embedding: 64, heads: 4, headsKv: 4, feedForward: 176, vocab: 1024, contextLength: 512, weightType: GgmlType.F16 },
  bench: { layers: 12, embedding: 768, heads: 12, headsKv: 12, feedForward: 2048, vocab: 16384, contextLength: 2048, weightType: GgmlType.Q8_0 },
};

/** ChatML, the template most instruction-tuned GGUFs carry; node-llama-cpp recognises it. */
export const TINY_CHAT_TEMPLATE =
  `{% for message in messages %}{{'${IM_START}' + message['role'] + '\\n' + message['content'] + '${IM_END}' + '\\n'}}{% endfor %}` +
  `{% if add_generation_prompt %}{{ '${IM_START}assistant\\n' }}{% endif %}`;

/** llama_ftype of the dominant weight type. */
const FILE_TYPE: Record<GgmlType, number> = { [GgmlType.F32]: 0, [GgmlType.F16]: 1, [GgmlType.Q8_0]: 7 };

function uniform(rng: Rng, count: number, std: number): Float32Array {
  const out = new Float32Array(count);
  const a = Math.sqrt(3) * std; // U(-a, a) has standard deviation a/√3
  const scale = (2 * a) / 4294967296;
  for (let i = 0; i < count; i++) out[i] = rng.nextUint32() * scale - a;
  return out;
}

function constant(count: number, value: number): Float32Array {
  return new Float32Array(count).fill(value);
}

/** The full GGUF description of a tiny model; tests may alter it (e.g. break metadata) before writing. */
export function tinyGgufSpec(preset: TinyPreset, seed: number): GgufSpec {
  const shape = TINY_PRESETS[preset];
  const vocab = buildTinyVocab(shape.vocab);
  const rng = createRng(seed);
  const { embedding: n, feedForward: ff, headsKv, heads, weightType } = shape;
  const headDim = n / heads;
  const kvWidth = headDim * headsKv;

  const matrix = (name: string, rows: number, rowLength: number, std: number): GgufTensorSpec => ({
    name,
    dims: [rowLength, rows],
    type: weightType,
    values: () => uniform(rng.fork(name), rows * rowLength, std),
  });
  const norm = (name: string): GgufTensorSpec => ({ name, dims: [n], type: GgmlType.F32, values: () => constant(n, 1) });

  const tensors: GgufTensorSpec[] = [matrix('token_embd.weight', shape.vocab, n, 1)];
  for (let i = 0; i < shape.layers; i++) {
    const p = `blk.${i}.`;
    tensors.push(
      norm(`${p}attn_norm.weight`),
      matrix(`${p}attn_q.weight`, n, n, 1 / Math.sqrt(n)),
      matrix(`${p}attn_k.weight`, kvWidth, n, 1 / Math.sqrt(n)),
      matrix(`${p}attn_v.weight`, kvWidth, n, 1 / Math.sqrt(n)),
      matrix(`${p}attn_output.weight`, n, n, 1 / Math.sqrt(n)),
      norm(`${p}ffn_norm.weight`),
      matrix(`${p}ffn_gate.weight`, ff, n, 1 / Math.sqrt(n)),
      matrix(`${p}ffn_down.weight`, n, ff, 1 / Math.sqrt(ff)),
      matrix(`${p}ffn_up.weight`, ff, n, 1 / Math.sqrt(n)),
    );
  }
  tensors.push(norm('output_norm.weight'), outputMatrix(rng, shape, vocab));

  const meta = new Map<string, GgufKvValue>([
    ['general.architecture', kv.str('llama')],
    ['general.name', kv.str(`fairground-${preset}-seed${seed}`)],
    ['general.alignment', kv.u32(32)],
    ['general.file_type', kv.u32(FILE_TYPE[weightType])],
    ['llama.vocab_size', kv.u32(shape.vocab)],
    ['llama.context_length', kv.u32(shape.contextLength)],
    ['llama.embedding_length', kv.u32(n)],
    ['llama.block_count', kv.u32(shape.layers)],
    ['llama.feed_forward_length', kv.u32(ff)],
    ['llama.attention.head_count', kv.u32(heads)],
    ['llama.attention.head_count_kv', kv.u32(headsKv)],
    ['llama.rope.dimension_count', kv.u32(headDim)],
    ['llama.rope.freq_base', kv.f32(10000)],
    ['llama.attention.layer_norm_rms_epsilon', kv.f32(1e-5)],
    // Mean pooling: an embedding context averages the token vectors of a text.
    ['llama.pooling_type', kv.u32(1)],
    ['tokenizer.ggml.model', kv.str('llama')],
    ['tokenizer.ggml.tokens', kv.arr(GgufValueType.STRING, vocab.tokens)],
    ['tokenizer.ggml.scores', kv.arr(GgufValueType.FLOAT32, vocab.scores)],
    // Without token types llama.cpp does not decode byte tokens.
    ['tokenizer.ggml.token_type', kv.arr(GgufValueType.INT32, vocab.types)],
    ['tokenizer.ggml.bos_token_id', kv.u32(vocab.bos)],
    ['tokenizer.ggml.eos_token_id', kv.u32(vocab.eos)],
    ['tokenizer.ggml.unknown_token_id', kv.u32(vocab.unk)],
    ['tokenizer.ggml.add_bos_token', kv.bool(true)],
    ['tokenizer.ggml.add_eos_token', kv.bool(false)],
    ['tokenizer.chat_template', kv.str(TINY_CHAT_TEMPLATE)],
  ]);
  return { kv: meta, tensors };
}

function outputMatrix(rng: Rng, shape: TinyShape, vocab: TinyVocab): GgufTensorSpec {
  const n = shape.embedding;
  return {
    name: 'output.weight',
    dims: [n, shape.vocab],
    type: shape.weightType,
    values: () => {
      const w = uniform(rng.fork('output.weight'), shape.vocab * n, 3 / Math.sqrt(n));
      for (const id of vocab.nonText) w.fill(0, id * n, (id + 1) * n);
      return w;
    },
  };
}

export interface TinyModelOptions {
  preset?: TinyPreset;
  seed?: number;
}

export interface WrittenModel {
  path: string;
  bytes: number;
  parameters: number;
}

export async function writeTinyGguf(path: string, options: TinyModelOptions = {}, write: GgufWriteOptions = {}): Promise<WrittenModel> {
  const spec = tinyGgufSpec(options.preset ?? 'tiny', options.seed ?? 0);
  const { bytes } = await writeGguf(path, spec, write);
  const parameters = spec.tensors.reduce((sum, t) => sum + t.dims.reduce((a, b) => a * b, 1), 0);
  return { path, bytes, parameters };
}
