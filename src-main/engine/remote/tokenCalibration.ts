/**
 * A calibrated token estimate for a remote model whose server cannot tokenize (issue 35 item 7).
 *
 * The stated fallback (tokenBudget.ts: UTF-8 bytes + 1) is an upper bound that overshoots a real
 * tokenizer 1.6–1.9× on English, so budgets cut documents the model would have kept. Instead the
 * model's own tokenizer is measured through a route every OpenAI-style server has: a generation
 * with `max_tokens: 1` reports `usage.prompt_tokens`, the prompt's tokens as the server counted
 * them. A few fixed probe texts of known byte composition are sent; from their counts a byte cost
 * per character class is fitted:
 *
 *   tokens(text) ≈ Σ_class bytes_class(text) × w_class × (1 + CALIBRATION_MARGIN)
 *
 * with classes 'words' (ASCII letters and spaces), 'digits', 'symbols' (other ASCII, newlines
 * included) and 'other' (every non-ASCII byte). What the route adds around a prompt (a beginning
 * token, a chat template) is measured with a one-letter prompt ("a": one token in every tokenizer
 * Fairground has met) and subtracted from each probe's count; it is also the margin of a whole
 * prompt (`asPrompt`) in place of the fixed one. The fit is kept per endpoints + model + revision
 * for the process's life, so every engine of one served model shares it; a server on which the
 * probe fails keeps the stated upper bound (the caller's choice, with its label).
 */
import { ESTIMATE_PROMPT_MARGIN } from '../tokenBudget';
import { EngineError, type TokenizeRequest, type TokenizeResult } from '../types';

/** Above the fitted cost, so that a prompt cut by the estimate errs towards fitting its context; small enough to keep ≥ 95% of what the real tokenizer keeps. */
export const CALIBRATION_MARGIN = 0.005;

export const BYTE_CLASSES = ['words', 'digits', 'symbols', 'other'] as const;
export type ByteClass = (typeof BYTE_CLASSES)[number];
type ClassVector = [number, number, number, number];

/** Which class a code point's bytes count in. */
function classOf(cp: number): number {
  if (cp === 0x20 || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) return 0;
  if (cp >= 0x30 && cp <= 0x39) return 1;
  if (cp < 0x80) return 2;
  return 3;
}

function utf8Length(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** UTF-8 bytes of `text` per class (words, digits, symbols, other). */
export function classBytes(text: string): ClassVector {
  const v: ClassVector = [0, 0, 0, 0];
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    v[classOf(cp)] += utf8Length(cp);
  }
  return v;
}

/**
 * The probe texts: each mostly of one class, so the 4×4 system of their counts is well
 * conditioned. Fixed, so that one server's fit is the same on every run.
 */
export const PROBE_TEXTS: Record<ByteClass, string> = {
  words:
    'When the small town by the river woke up on Monday morning the baker had already opened his shop and the smell of fresh ' +
    'bread drifted along the main street where children walked to school Most of the people who lived there had known each ' +
    'other for years and they talked about the weather and the plans for a new bridge that the council had promised',
  digits: '1984 2023 365 42 7 1000000 3141592653 2718281828 12 24 48 96 192 384 768 1536 3072 19 2001 1066 555 0100 8675309 404 65535 90210 123456789',
  symbols: '(a), [b]; {c}: "d" \'e\' - f / g | h @ i # j $ k % l & m * n + o = p < q > r ? s ! t .\n... --- // :: (( )) {"k": [1, 2]}, <p>; f(x) = (a + b) * c; $5.00 50% (p. 3)\n',
  other: 'café naïve Zürich señor Ångström Łódź Ελληνικά λόγος Москва Привет 日本語のテキスト 中文 한국어 עברית العربية € £ © ° ± × — … “ ” → ≈ ≤ ∑ √ ∞ 😀 🚀 ✓',
};

/**
 * The OpenAI `user` field of every calibration request (probes and samples), so that a server's
 * logs — and tests counting a stand-in's requests — can tell them from the study's calls.
 */
export const CALIBRATION_USER = 'fairground-token-calibration';

/** A prompt of one token in every tokenizer: the route's own tokens are its count less one. */
const ONE_TOKEN_PROBE = 'a';

/** Counts a prompt's tokens through one generation route (`usage.prompt_tokens`). */
export type PromptCounter = (route: 'completions' | 'chat', text: string, signal: AbortSignal | undefined) => Promise<number>;

export interface TokenCalibration {
  /** Fitted tokens per UTF-8 byte of each class (words, digits, symbols, other). */
  tokensPerByte: ClassVector;
  /** Tokens the completions route adds to a text prompt (a beginning token), where it was measured. */
  textOverhead?: number;
  /** Tokens the chat route adds around one user message, where it was measured. */
  chatOverhead?: number;
  /** Requests the calibration made (every one answered). */
  probes: number;
  /** The route the class costs were measured on. */
  route: 'completions' | 'chat';
}

/** The served model's fitted costs, by endpoints + model + revision, for the process's life. */
const calibrations = new Map<string, Promise<TokenCalibration>>();

/** The calibration for `key`, measured once (a failed one is forgotten, so a later engine may try again). */
export function calibrationFor(key: string, measure: () => Promise<TokenCalibration>): Promise<TokenCalibration> {
  let found = calibrations.get(key);
  if (!found) {
    found = measure();
    calibrations.set(key, found);
    found.catch(() => calibrations.delete(key));
  }
  return found;
}

/** Forget every calibration (tests). */
export function clearCalibrations(): void {
  calibrations.clear();
}

/**
 * Measure a model's token costs through `count`. Routes are tried in order (the class costs come
 * from the first that answers); the other route, where it answers, gives its own overhead.
 */
export async function calibrate(count: PromptCounter, routes: readonly ('completions' | 'chat')[], signal?: AbortSignal): Promise<TokenCalibration> {
  const failures: string[] = [];
  for (const route of routes) {
    let overhead: number;
    try {
      overhead = Math.max(0, (await count(route, ONE_TOKEN_PROBE, signal)) - 1);
    } catch (err) {
      if (signal?.aborted || (err instanceof EngineError && err.code === 'aborted')) throw err;
      failures.push(err instanceof Error ? err.message : String(err));
      continue;
    }
    const rows: ClassVector[] = [];
    const tokens: number[] = [];
    for (const c of BYTE_CLASSES) {
      rows.push(classBytes(PROBE_TEXTS[c]));
      tokens.push((await count(route, PROBE_TEXTS[c], signal)) - overhead);
    }
    const w = solve4(rows, tokens);
    if (!w || w.some((x) => !Number.isFinite(x) || x <= 0 || x > 1.5)) {
      throw new EngineError('remote-error', `token calibration: the probe counts (${tokens.join(', ')} after ${overhead} added by the ${route} route) fit no positive cost per byte`);
    }
    const calibration: TokenCalibration = { tokensPerByte: w, probes: 1 + BYTE_CLASSES.length, route, ...(route === 'completions' ? { textOverhead: overhead } : { chatOverhead: overhead }) };
    for (const other of routes) {
      if (other === route) continue;
      try {
        const extra = Math.max(0, (await count(other, ONE_TOKEN_PROBE, signal)) - 1);
        calibration.probes += 1;
        if (other === 'completions') calibration.textOverhead = extra;
        else calibration.chatOverhead = extra;
      } catch (err) {
        if (signal?.aborted || (err instanceof EngineError && err.code === 'aborted')) throw err;
      }
    }
    return calibration;
  }
  throw new EngineError('remote-error', failures.length > 0 ? failures.join('; ') : 'token calibration: no route to probe');
}

/** Gaussian elimination with partial pivoting; undefined when singular. */
function solve4(rows: ClassVector[], rhs: number[]): ClassVector | undefined {
  const a = rows.map((r, i) => [...r, rhs[i] as number]);
  const n = 4;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    if (Math.abs(a[pivot]![col]!) < 1e-9) return undefined;
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = a[r]![col]! / a[col]![col]!;
      for (let k = col; k <= n; k++) a[r]![k]! -= f * a[col]![k]!;
    }
  }
  return [0, 1, 2, 3].map((i) => a[i]![n]! / a[i]![i]!) as ClassVector;
}

/** The fitted cost of `text` before any scale or margin. */
export function fittedCost(text: string, c: TokenCalibration): number {
  return classBytes(text).reduce((s, b, i) => s + b * c.tokensPerByte[i]!, 0);
}

/** The calibrated count of `text` (plain text, nothing added), its fitted cost times `scale` (sampledScale) and the margin. */
export function calibratedCount(text: string, c: TokenCalibration, scale = 1): number {
  if (text.length === 0) return 0;
  return Math.max(1, Math.ceil(fittedCost(text, c) * scale * (1 + CALIBRATION_MARGIN) - 1e-9));
}

/** The longest prefix of `text` whose calibrated count is at most `maxTokens`, cut before a space where one is near. */
export function calibratedPrefix(text: string, maxTokens: number, c: TokenCalibration, scale = 1): string {
  if (calibratedCount(text, c, scale) <= maxTokens) return text;
  let cost = 0;
  let end = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    const next = cost + utf8Length(cp) * c.tokensPerByte[classOf(cp)]!;
    if (Math.max(1, Math.ceil(next * scale * (1 + CALIBRATION_MARGIN) - 1e-9)) > maxTokens) break;
    cost = next;
    end += ch.length;
  }
  const cut = text.slice(0, end);
  const space = cut.search(/\s\S*$/);
  // Cut at a word boundary (a partial word costs more tokens than its share: measured ×1.26–1.36 at
  // 8-token budgets on the tiny model) unless it throws away more than a tenth of the text kept.
  return space > 0 && space >= end * 0.9 ? cut.slice(0, space) : cut;
}

/**
 * A request's texts sampled to scale the fit to their kind of text: up to SAMPLE_TEXTS of them
 * spread evenly over it, each cut to its first SAMPLE_TEXT_BYTES, packed (joined by newlines) into
 * at most SAMPLE_PROMPTS prompts of at most SAMPLE_BYTES each.
 */
export const SAMPLE_TEXTS = 48;
export const SAMPLE_TEXT_BYTES = 320;
export const SAMPLE_PROMPTS = 6;
export const SAMPLE_BYTES = 1200;

/** A request's own texts, counted through the route, against the fit: Σ counted / Σ fitted. */
export interface SampledScale {
  factor: number;
  /** Texts counted (0: none could be, factor 1). */
  samples: number;
  /** Requests they took. */
  requests: number;
  /**
   * The largest counted / fitted ratio of one sample request: whole prompts are counted with it
   * (a prompt must not overflow its context where a text cut a little short only keeps a little less).
   */
  upper?: number;
}

/**
 * The scale of one request (issue 35 item 7), a function of that request alone so that every process
 * gives the same texts the same counts (a batch plan's export, a shard and a direct run build the same
 * prompts). A whole prompt (`asPrompt`, what decides whether it fits its context) is scaled by its own
 * sample: a prompt under SAMPLE_BYTES is its own sample, so its count is the server's. Texts to count
 * or cut that are too few to sample well (under SAMPLE_BYTES together: one document to shorten) keep
 * the probes' fit unscaled and send nothing, so that counting a cut and cutting agree (a cut's count is
 * within its budget): before, each was scaled by a one-text sample of its own, and a prompt budget that
 * cut a document and counted it again chased two scales until it gave up. A larger request is scaled
 * by its own sample, as before.
 */
export async function requestScale(request: Pick<TokenizeRequest, 'texts' | 'asPrompt'>, sample: () => Promise<SampledScale>): Promise<SampledScale> {
  const small = request.texts.reduce((a, t) => a + Buffer.byteLength(t, 'utf8'), 0) < SAMPLE_BYTES;
  if (small && request.asPrompt === undefined) return { factor: 1, samples: 0, requests: 0 };
  return sample();
}

/** The first `maxBytes` of `text` (whole characters). */
function headBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    bytes += utf8Length(ch.codePointAt(0) as number);
    if (bytes > maxBytes) break;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** A text as sampled: whole when it is short, else its first and last `maxBytes / 2` (a text's end may be of another kind than its start). */
function sampleOf(text: string, maxBytes: number): string {
  const t = text.trim();
  if (Buffer.byteLength(t, 'utf8') <= maxBytes) return t;
  const head = headBytes(t, maxBytes >> 1).trim();
  const tail = [...headBytes([...t].reverse().join(''), maxBytes >> 1)].reverse().join('').trim();
  return `${head} ${tail}`.trim();
}

/**
 * The fit scaled to a request's kind of text (issue 35 item 7: the probes are generic prose, a
 * corpus is not): a sample of its texts (SAMPLE_TEXTS …; a long one by its start and end) is counted through the calibration's
 * route (usage.prompt_tokens less the route's overhead; `count` memoizes) and the fitted costs
 * scaled by Σ counted / Σ fitted. A sample prompt the server refuses (too long for its context) is
 * left out; `maxSampleBytes` lowers SAMPLE_BYTES for a small context. Deterministic: the same
 * texts give the same samples and the same scale.
 */
export async function sampledScale(texts: readonly string[], c: TokenCalibration, count: (text: string, signal: AbortSignal | undefined) => Promise<number>, signal?: AbortSignal, maxSampleBytes = SAMPLE_BYTES): Promise<SampledScale> {
  const candidates = [...new Set(texts.filter((t) => t.trim().length > 0))];
  const n = Math.min(SAMPLE_TEXTS, candidates.length);
  const prompts: string[][] = [];
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const head = sampleOf(candidates[Math.floor(((i + 0.5) * candidates.length) / n)]!, Math.min(SAMPLE_TEXT_BYTES, maxSampleBytes));
    if (head.length === 0) continue;
    const size = Buffer.byteLength(head, 'utf8');
    const last = prompts.at(-1);
    if (last && bytes + 1 + size <= maxSampleBytes) {
      last.push(head);
      bytes += 1 + size;
    } else {
      if (prompts.length === SAMPLE_PROMPTS) break;
      prompts.push([head]);
      bytes = size;
    }
  }
  const overhead = (c.route === 'completions' ? c.textOverhead : c.chatOverhead) ?? 0;
  let counted = 0;
  let fitted = 0;
  let samples = 0;
  let requests = 0;
  let upper = 0;
  // A prompt the server refuses (a context smaller than it) is split in two and tried again, a few times at most.
  let splits = 2 * SAMPLE_PROMPTS;
  while (prompts.length > 0) {
    const prompt = prompts.shift()!;
    const text = prompt.join('\n');
    let tokens: number;
    try {
      tokens = (await count(text, signal)) - overhead;
    } catch (err) {
      if (signal?.aborted || (err instanceof EngineError && err.code === 'aborted')) throw err;
      if (splits-- > 0) {
        if (prompt.length > 1) prompts.unshift(prompt.slice(0, prompt.length >> 1), prompt.slice(prompt.length >> 1));
        else if (text.length > 32) prompts.unshift([text.slice(0, text.length >> 1).trim()]);
      }
      continue;
    }
    const cost = fittedCost(text, c);
    counted += Math.max(1, tokens);
    fitted += cost;
    if (cost > 0) upper = Math.max(upper, Math.max(1, tokens) / cost);
    samples += prompt.length;
    requests++;
  }
  return requests === 0 || fitted <= 0 ? { factor: 1, samples: 0, requests: 0 } : { factor: counted / fitted, samples, requests, upper: Math.max(upper, counted / fitted) };
}

/** What a calibrated result says about itself (`TokenizeResult.estimate`). */
export function calibrationLabel(c: TokenCalibration, scale?: SampledScale): { method: string; margin: string } {
  const perToken = c.tokensPerByte.map((w, i) => `${BYTE_CLASSES[i]} ${(1 / w).toFixed(2)}`).join(', ');
  const scaled = scale && scale.requests > 0 ? `, scaled ×${scale.factor.toFixed(3)} by ${scale.samples} of these texts counted the same way` : '';
  const text = c.textOverhead !== undefined ? `+${c.textOverhead} per text prompt (measured)` : `+${ESTIMATE_PROMPT_MARGIN.text} per text prompt (not measured)`;
  const chat = c.chatOverhead !== undefined ? `+${c.chatOverhead} per chat prompt (measured)` : `+${ESTIMATE_PROMPT_MARGIN.chat} per chat prompt (not measured)`;
  return {
    method: `calibrated estimate (${c.probes + (scale?.requests ?? 0)} probes): UTF-8 bytes per token fitted on this model through the ${c.route} route's usage.prompt_tokens (${perToken})${scaled}, counts raised ${+(CALIBRATION_MARGIN * 100).toFixed(1)}%`,
    margin: `${text}, ${chat}`,
  };
}

/** `tokenize` by a calibration; `reason` says why the server's tokenizer was not used. */
export function calibratedTokenize(request: TokenizeRequest, c: TokenCalibration, reason: string, scale: SampledScale = { factor: 1, samples: 0, requests: 0 }, contextSize?: number): TokenizeResult {
  const margin = request.asPrompt === 'text' ? (c.textOverhead ?? ESTIMATE_PROMPT_MARGIN.text) : request.asPrompt === 'chat' ? (c.chatOverhead ?? ESTIMATE_PROMPT_MARGIN.chat) : 0;
  const max = request.maxTokens;
  return {
    // A whole prompt is counted with the largest sample ratio seen (it must fit its context); texts to cut or pack with the mean.
    counts: request.texts.map((t) => calibratedCount(t, c, request.asPrompt !== undefined ? Math.max(scale.factor, scale.upper ?? scale.factor) : scale.factor) + margin),
    source: 'estimate',
    estimate: { ...calibrationLabel(c, scale), reason },
    ...(contextSize !== undefined ? { contextSize } : {}),
    ...(max !== undefined ? { truncated: request.texts.map((t) => calibratedPrefix(t, max, c, scale.factor)) } : {}),
  };
}
