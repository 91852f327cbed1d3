/**
 * The simulated reader (issue 14): an engine behind the same interface as llama.cpp and the remote
 * engine whose behaviour is a declared profile (profile.ts) over a known collection (world.ts), so
 * every pipeline can be run against planted ground truth. It learns which query and which documents
 * (in which order) a call is about from the prompt text alone (promptReader.ts).
 *
 * Notation: for a prompt showing documents d_1..d_L, a = biasCurve(profile.bias, L) (Σ a = 1),
 * ã_j = a_j / max a (the most attended position has weight 1; with profile.biasStrength s < 1, a is
 * a(s) = (1 − s)/L + s·a and ã_j = a_j(s) / max a, profile.ts), u_j = u(q, d_j) the planted utility,
 * c = closedBookAccuracy, and a threshold τ = 0.5 + noise·(U − 0.5) with U uniform from a hash of
 * (seed, request): τ = 0.5 at noise 0 (deterministic), uniform on [0, 1] at noise 1 (then "p ≥ τ" is a
 * Bernoulli(p) draw).
 *
 * generate, by what the request asks (recognised from its output constraint, else an answer):
 * - answer (no constraint): v = min(1, Σ_j ã_j u_j), p = c + (1 − c)·(1 − λ)·v (λ = profile.lapse, default 0); the first reference answer of
 *   q when p ≥ τ, else a wrong answer: one of the query's label set (attrs.labels) or of the other
 *   answers of its task, chosen per query at noise 0 (so every wrong answer of a query is the same
 *   one) and per request otherwise. A query with sub-aspects instead gets, for each aspect i, its
 *   sub-answer when c + (1 − c)·(1 − λ)·min(1, Σ_j ã_j cov_i(d_j)) ≥ τ_i (cov below), joined by "; ".
 *   No documents: p = c. No known query in the prompt: "I do not know."
 *   Asked to cite (the text after the last document contains "cite", as Fair RAG's citation
 *   instruction does), a right answer is followed by " [j]…" for every position j whose document the
 *   attribution judge below would say entails it (u ≥ 0.5; for sub-aspects, also covering an answered
 *   aspect); a wrong answer cites nothing.
 * - attribution judge (JSON {"entails"} schema or the yes/no grammar): entails iff the premise document
 *   d is useful (u(q, d) ≥ 0.5) for a query q whose reference answer (or a sub-answer d covers) occurs
 *   in the hypothesis ("Hypothesis: …" when the template has it, else the prompt without d).
 * - sub-aspect explorer (the explorer's list grammar or {"aspects"} schema): the query's planted
 *   aspects, cut to the constraint's length and count.
 * - list-wise ranker step (a choice among ids, grammar alternation or {"choice"} enum): the remaining
 *   candidate with the largest marginal coverage Σ_i w_i cov_i(d), w_i = 1 − max over the documents
 *   already chosen of cov_i (all 1 again once every aspect is covered), times ã at its position in the
 *   prompt, plus noise·N(0,1); ties go to the earlier position. Without sub-aspects the gain is u(q, d).
 * - pairwise judge (choices A / B / tie): the response with the larger Σ_i cov_i(response); equal = tie.
 * cov_i(x) = share of the distinct words (3+ characters) of sub-answer i that occur in x.
 *
 * score: the MoI listwise request (Eq. 3: the query text inside a continuation, the documents before it)
 * gets log-probabilities such that every question token has log-probability
 *   t = Σ_j a_j (u_{π[j]} − 1) + 0.1·noise·N(0,1)   (capped at 0)
 * and every other token 0, so s = mean(question) + w·mean(passages) = Σ_j a_j u_{π[j]} − 1 + noise
 * exactly at noise 0 (the −1 keeps log-probabilities ≤ 0; as Σ a = 1 it is a constant shift of u, which MoI's
 * identifiable family absorbs, moi.md §2.3). With segment 'sum' the question term is n_q·t. The two
 * continuations of a thresholded attribution judgment get log-probabilities −0.01 (the judge's answer
 * above) and −5; any other continuation log p or log(1 − p) of the answer rule, spread over its words.
 *
 * embed: a deterministic lexical embedding (hashed bag of words, 256 dimensions, 1 + log tf, signed,
 * L2-normalised), so dense retrieval and RRF run. tokenize: the sim's tokens (runs of whitespace and of
 * non-whitespace; their texts concatenate to the input).
 *
 * Deterministic for a given (profile, world, request); the cache identity (identity()) includes the
 * profile, the collection's content hash and SIM_ENGINE_VERSION.
 */
import { canonicalJson } from '../callCache';
import type { ContinuationScore, EmbedRequest, EmbedResult, Engine, EngineIdentity, GenerateRequest, GenerateResult, ScoreRequest, ScoreResult, TokenizeRequest, TokenizeResult } from '../types';
import { EngineError } from '../types';
import { biasAtStrength, SIM_ENGINE_VERSION, type SimProfile } from './profile';
import { PromptReader, type FoundDoc } from './promptReader';
import { gaussian, normalise, simTokens, squash, unit, words } from './text';
import type { SimDoc, SimQuery, SimWorld } from './world';

export const SIM_EMBEDDING_DIMENSIONS = 256;
/** Standard deviation of the Gaussian noise on MoI scores at noise 1 (in units of utility). */
export const SCORE_NOISE_SD = 0.1;
const DONT_KNOW = 'I do not know.';

export interface SimEngineOptions {
  name: string;
  /** The cache identity of the profile (the library stores it as the model's hash). */
  modelKey: string;
  profile: SimProfile;
  world: SimWorld;
}

type Task =
  | { kind: 'nli'; format: 'json' | 'yes-no' }
  | { kind: 'explorer'; format: 'json' | 'grammar'; maxAspects: number; maxChars: number }
  | { kind: 'choice'; format: 'json' | 'grammar'; options: string[] }
  | { kind: 'answer' };

export class SimEngine implements Engine {
  private readonly reader: PromptReader;
  private readonly profile: SimProfile;
  private readonly scale: number;
  /** 1 − λ: the share of the documents' help the reader keeps (profile.lapse). */
  private readonly kept: number;
  private readonly wordSets = new Map<string, Set<string>>();
  private closed = false;

  constructor(private readonly options: SimEngineOptions) {
    this.profile = options.profile;
    this.scale = options.profile.utilityScale ?? 1;
    this.kept = 1 - Math.min(1, Math.max(0, options.profile.lapse ?? 0));
    this.reader = new PromptReader(options.world);
  }

  /** The content hash of the collection as this reader read it (its world is fixed at construction). */
  get worldHash(): string {
    return this.options.world.contentHash;
  }

  identity(): Promise<EngineIdentity> {
    return Promise.resolve({
      kind: 'sim',
      modelKey: this.options.modelKey,
      modelName: this.options.name,
      outputAffectingSettings: { simulatedReader: true, profile: this.profile, collectionHash: this.options.world.contentHash, version: SIM_ENGINE_VERSION },
      versions: { 'simulated reader': SIM_ENGINE_VERSION },
    });
  }

  generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateResult> {
    this.check(signal);
    const prompt = promptText(request);
    const key = canonicalJson(request);
    const task = taskOf(request);
    let text: string;
    if (task.kind === 'nli') {
      const entails = this.entails(prompt);
      text = task.format === 'json' ? JSON.stringify({ entails }) : entails ? 'yes' : 'no';
    } else if (task.kind === 'explorer') {
      const aspects = this.explore(prompt, task.maxAspects, task.maxChars);
      text = task.format === 'json' ? JSON.stringify({ aspects }) : `[${aspects.map((a) => JSON.stringify(a)).join(', ')}]`;
    } else if (task.kind === 'choice') {
      const choice = this.choose(prompt, task.options, key);
      text = task.format === 'json' ? JSON.stringify({ choice }) : choice;
    } else {
      text = this.answer(prompt, key);
    }
    return Promise.resolve(finish(text, prompt, request));
  }

  score(request: ScoreRequest, signal?: AbortSignal): Promise<ScoreResult> {
    this.check(signal);
    const key = canonicalJson(request);
    const scores = request.continuations.map((c, i) => this.scoreOne(request.prompt, c, `${key}#${i}`, request.continuations));
    return Promise.resolve({ promptTokens: simTokens(request.prompt).length, scores });
  }

  embed(request: EmbedRequest, signal?: AbortSignal): Promise<EmbedResult> {
    this.check(signal);
    return Promise.resolve({ vectors: request.texts.map(lexicalEmbedding), dimensions: SIM_EMBEDDING_DIMENSIONS });
  }

  /** Counts in the sim's tokens (runs of whitespace and of non-whitespace); a cut ends on a token boundary. */
  tokenize(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult> {
    this.check(signal);
    const tokens = request.texts.map((t) => simTokens(t));
    const max = request.maxTokens;
    return Promise.resolve({
      counts: tokens.map((t) => t.length),
      ...(max !== undefined ? { truncated: request.texts.map((text, i) => (tokens[i]!.length <= max ? text : text.slice(0, tokens[i]![max]!.start))) } : {}),
      source: 'model' as const,
    });
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  // ---- the planted model ---------------------------------------------------------------------

  private check(signal?: AbortSignal): void {
    if (signal?.aborted) throw new EngineError('aborted', 'the call was cancelled');
    if (this.closed) throw new EngineError('engine-crashed', 'the simulated reader was closed');
  }

  private threshold(...parts: (string | number)[]): number {
    return 0.5 + Math.min(1, this.profile.noise) * (unit(this.profile.seed, 'threshold', ...parts) - 0.5);
  }

  private utility(q: SimQuery, docId: string): number {
    const u = (q.utility.get(docId) ?? 0) * this.scale;
    return Math.min(1, Math.max(0, u));
  }

  /** ã: the bias relative to the most attended position. */
  private relativeBias(length: number): number[] {
    return biasAtStrength(this.profile.bias, length, this.profile.biasStrength ?? 1).relative;
  }

  private read(prompt: string): { squashed: string; query: SimQuery | null; docs: FoundDoc[]; queryStart: number } {
    const squashed = squash(prompt);
    const found = this.reader.findQuery(squashed);
    const docs = this.reader.findDocs(squashed, found?.query.candidates ?? null, found);
    return { squashed, query: found?.query ?? null, docs, queryStart: found?.start ?? squashed.length };
  }

  /** p = c + (1 − c)·(1 − λ)·min(1, Σ ã_j u_j) for the documents of the prompt (λ: profile.lapse). */
  private answerProbability(q: SimQuery, docs: readonly FoundDoc[]): number {
    const rel = this.relativeBias(docs.length);
    const v = Math.min(
      1,
      docs.reduce((acc, d, j) => acc + rel[j]! * this.utility(q, d.doc.id), 0),
    );
    const c = this.profile.closedBookAccuracy;
    return c + (1 - c) * this.kept * v;
  }

  private answer(prompt: string, key: string): string {
    const { squashed, query: q, docs } = this.read(prompt);
    if (!q) return DONT_KNOW;
    const c = this.profile.closedBookAccuracy;
    // Asked to cite (Fair RAG's citation judge): the text after the last document says "cite".
    const lastEnd = docs.reduce((acc, d) => Math.max(acc, d.end), 0);
    const citing = docs.length > 0 && /\bcite\b/i.test(squashed.slice(lastEnd));
    const cite = (used: (d: FoundDoc) => boolean) => {
      if (!citing) return '';
      const marks = docs.flatMap((d, j) => (used(d) ? [`[${j + 1}]`] : []));
      return marks.length > 0 ? ` ${marks.join('')}` : '';
    };
    if (q.subaspects.length > 0) {
      const rel = this.relativeBias(docs.length);
      const parts = q.subaspects.filter((s, i) => {
        const v = Math.min(
          1,
          docs.reduce((acc, d, j) => acc + rel[j]! * this.coverage(q, d.doc, s.answer), 0),
        );
        return c + (1 - c) * this.kept * v >= this.threshold(key, 'aspect', i);
      });
      if (parts.length === 0) return DONT_KNOW;
      return `${parts.map((s) => s.answer).join('; ')}.${cite((d) => this.utility(q, d.doc.id) >= 0.5 && parts.some((s) => this.coverage(q, d.doc, s.answer) >= 0.5))}`;
    }
    const p = this.answerProbability(q, docs);
    if (q.answers.length > 0 && p >= this.threshold(key)) return `${q.answers[0]!}${cite((d) => this.utility(q, d.doc.id) >= 0.5)}`;
    return this.wrongAnswer(q, key);
  }

  private wrongAnswer(q: SimQuery, key: string): string {
    const right = new Set(q.answers.map(normalise));
    const pool = q.labels ?? this.options.world.queries.filter((o) => o.task === q.task && o.id !== q.id).flatMap((o) => o.answers.slice(0, 1));
    const options = [...new Set(pool)].filter((x) => !right.has(normalise(x))).sort();
    if (options.length === 0) return DONT_KNOW;
    const u = unit(this.profile.seed, 'wrong', this.profile.noise > 0 ? key : q.id);
    return options[Math.floor(u * options.length)]!;
  }

  private words(id: string, text: string): Set<string> {
    let s = this.wordSets.get(id);
    if (!s) this.wordSets.set(id, (s = new Set(words(text))));
    return s;
  }

  /** Share of the distinct 3+-character words of `answer` that occur in the document (times profile.coverages' factor for query q). */
  private coverage(q: SimQuery, doc: SimDoc, answer: string): number {
    const factor = this.profile.coverages?.[q.id]?.[doc.id] ?? 1;
    return this.scale * factor * coverageOf(this.words(`doc:${doc.id}`, `${doc.title} ${doc.text}`), answer);
  }

  private entails(prompt: string): boolean {
    const squashed = squash(prompt);
    const docs = this.reader.findDocs(squashed, null, null);
    const premise = docs[0];
    if (!premise) return false;
    const m = /Hypothesis:\s*([\s\S]*?)(?:\n\s*\n|$)/.exec(prompt);
    const hypothesis = normalise(m ? m[1]! : squashed.slice(0, premise.start) + squashed.slice(premise.end));
    return this.options.world.queries.some((q) => {
      if (this.utility(q, premise.doc.id) < 0.5) return false;
      if (q.answers.some((a) => normalise(a).length > 0 && hypothesis.includes(normalise(a)))) return true;
      return q.subaspects.some((s) => this.coverage(q, premise.doc, s.answer) >= 0.5 && hypothesis.includes(normalise(s.answer)));
    });
  }

  private explore(prompt: string, maxAspects: number, maxChars: number): string[] {
    const { query } = this.read(prompt);
    if (!query) return [];
    const out: string[] = [];
    for (const s of query.subaspects) {
      const clean = s.aspect
        .replace(/[^ !#-[\]-~]/g, '')
        .slice(0, maxChars)
        .trim();
      if (clean.length > 0 && !out.includes(clean)) out.push(clean);
      if (out.length >= maxAspects) break;
    }
    return out;
  }

  private choose(prompt: string, options: string[], key: string): string {
    const optionSet = new Set(options);
    if (options.every((o) => ['A', 'B', 'tie'].includes(o))) return this.judgePair(prompt, options);
    const { squashed, query, docs } = this.read(prompt);
    const labelled = docs.map((d, position) => ({ ...d, position, label: labelBefore(squashed, d.start) }));
    const remaining = labelled.filter((d) => d.label !== null && optionSet.has(d.label));
    if (remaining.length === 0 || !query) return options[0]!;
    const chosen = labelled.filter((d) => d.label !== null && !optionSet.has(d.label));
    const rel = this.relativeBias(labelled.length);
    let gain: (d: SimDoc) => number;
    if (query.subaspects.length > 0) {
      let w = query.subaspects.map((s) => 1 - Math.max(0, ...chosen.map((c) => this.coverage(query, c.doc, s.answer))));
      if (w.every((x) => x <= 1e-12)) w = w.map(() => 1);
      gain = (d) => query.subaspects.reduce((acc, s, i) => acc + w[i]! * this.coverage(query, d, s.answer), 0);
    } else {
      gain = (d) => this.utility(query, d.id);
    }
    let best = remaining[0]!;
    let bestScore = -Infinity;
    for (const d of remaining) {
      const score = gain(d.doc) * rel[d.position]! + (this.profile.noise > 0 ? this.profile.noise * gaussian(this.profile.seed, 'rank', key, d.label!) : 0);
      if (score > bestScore + 1e-12) {
        best = d;
        bestScore = score;
      }
    }
    return best.label!;
  }

  private judgePair(prompt: string, options: string[]): string {
    const m = /Response A:\s*([\s\S]*?)\s*Response B:\s*([\s\S]*?)(?:\n\s*\n\s*Answer|$)/.exec(prompt);
    const fallback = options.includes('tie') ? 'tie' : options[0]!;
    if (!m) return fallback;
    const { query } = this.read(prompt);
    if (!query) return fallback;
    const worth = (r: string): number => {
      const set = new Set(words(r));
      if (query.subaspects.length > 0) return query.subaspects.reduce((acc, s) => acc + coverageOf(set, s.answer), 0);
      return query.answers.some((a) => normalise(r).includes(normalise(a))) ? 1 : 0;
    };
    const a = worth(m[1]!);
    const b = worth(m[2]!);
    if (Math.abs(a - b) <= 1e-12) return fallback;
    return a > b ? 'A' : 'B';
  }

  private scoreOne(prompt: string, continuation: string, key: string, all: readonly string[]): ContinuationScore {
    const full = prompt + continuation;
    const squashed = squash(full);
    const found = this.reader.findQuery(squashed);
    const q = found?.query ?? null;
    const rawStart = q ? continuation.lastIndexOf(q.text) : -1;
    if (q && found && rawStart >= 0) {
      // MoI Eq. 3: the question is scored after the documents shown before it.
      const docs = this.reader.findDocs(squashed, q.candidates, found).filter((d) => d.end <= found.start);
      const a = biasAtStrength(this.profile.bias, docs.length, this.profile.biasStrength ?? 1).a;
      const planted = docs.reduce((acc, d, j) => acc + a[j]! * (this.utility(q, d.doc.id) - 1), 0);
      const noise = this.profile.noise > 0 ? SCORE_NOISE_SD * this.profile.noise * gaussian(this.profile.seed, 'score', key) : 0;
      const t = Math.min(0, planted + noise);
      const rawEnd = rawStart + q.text.length;
      const tokens = simTokens(continuation, [rawStart, rawEnd]);
      return scoreOf(
        tokens.map((x) => x.text),
        tokens.map((x) => (anchor(x) >= rawStart && anchor(x) < rawEnd ? t : 0)),
      );
    }
    const tokens = simTokens(continuation).map((x) => x.text);
    const spread = (total: number) => {
      const content = tokens.filter((x) => x.trim() !== '').length;
      return scoreOf(
        tokens,
        tokens.map((x) => (x.trim() === '' || content === 0 ? 0 : total / content)),
      );
    };
    const nli = /^\s*(\{"entails": (true|false)\}|yes|no)\s*$/.exec(continuation);
    if (nli && all.length === 2) {
      const saysYes = nli[2] === 'true' || /yes/.test(nli[1]!);
      return spread(this.entails(prompt) === saysYes ? -0.01 : -5);
    }
    if (!q) return spread(-tokens.filter((x) => x.trim() !== '').length);
    const docs = this.reader.findDocs(squashed, q.candidates, found).filter((d) => d.end <= (found?.start ?? squashed.length));
    const p = this.answerProbability(q, docs);
    const right = q.answers.some((x) => normalise(x) === normalise(continuation));
    return spread(Math.log(Math.max(1e-6, right ? p : 1 - p)));
  }
}

function anchor(token: { text: string; start: number }): number {
  const i = token.text.search(/\S/);
  return token.start + (i < 0 ? 0 : i);
}

function scoreOf(tokens: string[], logprobs: number[]): ContinuationScore {
  const sum = logprobs.reduce((a, b) => a + b, 0);
  return { tokens, logprobs, sum, mean: tokens.length > 0 ? sum / tokens.length : 0 };
}

function coverageOf(have: Set<string>, answer: string): number {
  const want = [...new Set(words(answer).filter((w) => w.length >= 3))];
  if (want.length === 0) return 0;
  return want.filter((w) => have.has(w)).length / want.length;
}

/** The "[label]" nearest before a document in a candidate list ("[D3] Title: text …"). */
function labelBefore(squashed: string, start: number): string | null {
  const m = /\[([^[\]\s]+)\][^[\]]*$/.exec(squashed.slice(Math.max(0, start - 400), start));
  return m ? m[1]! : null;
}

function promptText(request: GenerateRequest): string {
  if (request.prompt !== undefined) return request.prompt;
  return (request.messages ?? []).map((m) => m.content).join('\n\n');
}

/** What a request asks for, from its output constraint. */
function taskOf(request: GenerateRequest): Task {
  const schema = request.jsonSchema as { properties?: Record<string, { enum?: unknown; maxItems?: unknown; items?: { maxLength?: unknown } }> } | undefined;
  if (schema?.properties) {
    const p = schema.properties;
    if (p.entails) return { kind: 'nli', format: 'json' };
    if (p.aspects) {
      const maxItems = typeof p.aspects.maxItems === 'number' ? p.aspects.maxItems : 8;
      const maxChars = typeof p.aspects.items?.maxLength === 'number' ? p.aspects.items.maxLength : 200;
      return { kind: 'explorer', format: 'json', maxAspects: maxItems, maxChars };
    }
    if (p.choice && Array.isArray(p.choice.enum)) return { kind: 'choice', format: 'json', options: p.choice.enum.map(String) };
  }
  const g = request.grammar?.trim();
  if (g) {
    const alternation = /^root\s*::=\s*("(?:[^"\\]|\\.)*"(?:\s*\|\s*"(?:[^"\\]|\\.)*")*)\s*$/.exec(g);
    if (alternation) {
      const options = [...alternation[1]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]!}"`) as string);
      if (options.length === 2 && options.includes('yes') && options.includes('no')) return { kind: 'nli', format: 'yes-no' };
      return { kind: 'choice', format: 'grammar', options };
    }
    if (/^root\s*::=\s*"\["/.test(g)) {
      const more = /\{0,(\d+)\}/.exec(g);
      const chars = /char\{1,(\d+)\}/.exec(g);
      return { kind: 'explorer', format: 'grammar', maxAspects: more ? Number(more[1]) + 1 : 1, maxChars: chars ? Number(chars[1]) : 200 };
    }
  }
  return { kind: 'answer' };
}

/** maxTokens (the sim's tokens), stop strings and the counts of a generated text. */
function finish(text: string, prompt: string, request: GenerateRequest): GenerateResult {
  let out = text;
  let finishReason: GenerateResult['finishReason'] = 'stop';
  for (const s of request.stop ?? []) {
    const i = out.indexOf(s);
    if (i >= 0) {
      out = out.slice(0, i);
      finishReason = 'stopString';
    }
  }
  const tokens = simTokens(out);
  if (tokens.length > request.maxTokens) {
    out = tokens
      .slice(0, request.maxTokens)
      .map((t) => t.text)
      .join('')
      .trimEnd();
    finishReason = 'length';
  }
  return { text: out, promptTokens: simTokens(prompt).length, completionTokens: Math.min(tokens.length, request.maxTokens), finishReason };
}

/** Hashed bag of words: 1 + log tf per word, a signed bucket per word (FNV-1a), L2-normalised. */
export function lexicalEmbedding(text: string): number[] {
  const v = new Array<number>(SIM_EMBEDDING_DIMENSIONS).fill(0);
  const tf = new Map<string, number>();
  for (const w of words(text)) tf.set(w, (tf.get(w) ?? 0) + 1);
  for (const [w, n] of tf) {
    let h = 0x811c9dc5;
    for (let i = 0; i < w.length; i++) {
      h ^= w.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    const bucket = h % SIM_EMBEDDING_DIMENSIONS;
    const sign = (h >>> 16) & 1 ? 1 : -1;
    v[bucket]! += sign * (1 + Math.log(n));
  }
  const norm = Math.sqrt(v.reduce((a, b) => a + b * b, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}
