/**
 * Fitting documents to an embedding model's context before anything is embedded (issue 34 item 8b).
 * node-llama-cpp refuses a text longer than the embedding context with a message that names no
 * document, and a build stopped at the first such document. Here every text is counted first with
 * the model's own tokenizer; then, as the user chose:
 *
 * - 'refuse' (the default): the build stops before embedding anything, naming the first document
 *   that does not fit (its docno and token count), the context size and how many more do not fit;
 * - 'cut': each such text is cut to its longest prefix that fits (a token boundary of the model's
 *   tokenizer), and the embedding set records how many documents were cut and how many tokens.
 *
 * Engines that report no embedding limit (`TokenizeResult.embedLimit`: the simulated reader, a
 * remote server) are not fitted; the record says the texts were not checked.
 */
import { DataError } from '../../core/errors';
import type { TokenizeRequest, TokenizeResult } from '../../engine/types';

export type Overlong = 'cut' | 'refuse';
export const OVERLONG_DEFAULT: Overlong = 'refuse';

/** What fitting needs of an engine (`Engine` fits). */
export interface TextTokenizer {
  tokenize(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult>;
}

export interface TextToFit {
  docId: string;
  text: string;
}

export interface CutDocument {
  docId: string;
  /** Tokens of the whole text. */
  tokens: number;
  /** Tokens kept (≤ the limit). */
  kept: number;
}

/** What an embedding set records about fitting (its params' `fit`, shown by the UI and the CLI). */
export interface FitRecord {
  overlong: Overlong;
  /** False when the engine reports no embedding limit: texts were embedded as they are. */
  checked: boolean;
  /** The context size the model embeds with (tokens), and the most text tokens that fit in it. */
  contextSize: number | null;
  maxTextTokens: number | null;
  /** Documents cut to fit, and the tokens cut from them in all (0 with 'refuse'). */
  documentsCut: number;
  tokensCut: number;
  /** The first cut documents (at most 20), in collection order. */
  examples: CutDocument[];
}

export interface FitResult {
  /** The text to embed for each input, in input order (cut where it had to be). */
  texts: string[];
  record: FitRecord;
}

const CHUNK = 256;
const EXAMPLES = 20;

/**
 * `noun` names what the texts are in a refusal: documents (cut is offered) or queries of a dense run
 * (refused only: a query is never cut silently; its text is the user's).
 */
export async function fitTexts(
  tokenizer: TextTokenizer,
  docs: readonly TextToFit[],
  overlong: Overlong,
  signal?: AbortSignal,
  noun: 'document' | 'query' = 'document',
  /** How the caller's user asks for 'cut' (named in a refusal): the CLI/UI option by default, a spec field for an experiment. */
  cutOption = 'overlong texts: cut',
): Promise<FitResult> {
  const unchecked: FitResult = {
    texts: docs.map((d) => d.text),
    record: { overlong, checked: false, contextSize: null, maxTextTokens: null, documentsCut: 0, tokensCut: 0, examples: [] },
  };
  if (docs.length === 0) return unchecked;
  const probe = await tokenizer.tokenize({ texts: [docs[0]!.text] }, signal);
  const limit = probe.embedLimit;
  if (limit === undefined || probe.source === 'estimate') return unchecked;
  const contextSize = probe.contextSize ?? null;

  const counts: number[] = [];
  for (let start = 0; start < docs.length; start += CHUNK) {
    signal?.throwIfAborted();
    const r = await tokenizer.tokenize({ texts: docs.slice(start, start + CHUNK).map((d) => d.text) }, signal);
    counts.push(...r.counts);
  }
  const over = docs.map((d, i) => ({ i, docId: d.docId, tokens: counts[i]! })).filter((d) => d.tokens > limit);
  const context = `the embedding model's context is ${contextSize ?? '?'} tokens, which holds at most ${limit} tokens of text (with the tokens the model adds)`;
  if (over.length > 0 && overlong === 'refuse') {
    const first = over[0]!;
    const longest = over.reduce((a, b) => (b.tokens > a.tokens ? b : a));
    const more = over.length - 1;
    const plural = noun === 'query' ? 'queries' : 'documents';
    throw new DataError(
      `${noun} '${first.docId}' has ${first.tokens} tokens; ${context}. ` +
        (more > 0 ? `${more} more ${more === 1 ? noun : plural} of ${docs.length} do${more === 1 ? 'es' : ''} not fit either (the longest: '${longest.docId}', ${longest.tokens} tokens). ` : '') +
        (noun === 'query'
          ? 'Nothing was retrieved: shorten the query, or use a model with a longer context.'
          : `Nothing was embedded: cut the texts that do not fit to the context (${cutOption}), or use a model with a longer context.`),
    );
  }

  const texts = docs.map((d) => d.text);
  const examples: CutDocument[] = [];
  let tokensCut = 0;
  for (let start = 0; start < over.length; start += CHUNK) {
    signal?.throwIfAborted();
    const chunk = over.slice(start, start + CHUNK);
    const kept = await cutToFit(tokenizer, chunk.map((d) => texts[d.i]!), limit, signal);
    chunk.forEach((d, j) => {
      texts[d.i] = kept[j]!.text;
      tokensCut += d.tokens - kept[j]!.tokens;
      if (examples.length < EXAMPLES) examples.push({ docId: d.docId, tokens: d.tokens, kept: kept[j]!.tokens });
    });
  }
  return { texts, record: { overlong, checked: true, contextSize, maxTextTokens: limit, documentsCut: over.length, tokensCut, examples } };
}

/**
 * Each text cut to at most `limit` tokens. A prefix cut at a token boundary can tokenize into other
 * tokens than it had inside the whole text, so the cut texts are counted again and cut shorter until
 * every one fits.
 */
async function cutToFit(tokenizer: TextTokenizer, texts: readonly string[], limit: number, signal?: AbortSignal): Promise<{ text: string; tokens: number }[]> {
  const truncated = (await tokenizer.tokenize({ texts: [...texts], maxTokens: limit }, signal)).truncated;
  if (!truncated || truncated.length !== texts.length) throw new Error('the tokenizer returned no cut texts');
  const recount = (await tokenizer.tokenize({ texts: truncated }, signal)).counts;
  const out: { text: string; tokens: number }[] = [];
  for (let j = 0; j < texts.length; j++) {
    let text = truncated[j]!;
    let tokens = recount[j]!;
    let max = limit;
    for (let round = 0; tokens > limit; round++) {
      max -= tokens - limit;
      if (round >= 16 || max <= 0) throw new Error(`could not cut a text to ${limit} tokens`);
      text = (await tokenizer.tokenize({ texts: [texts[j]!], maxTokens: max }, signal)).truncated![0]!;
      tokens = (await tokenizer.tokenize({ texts: [text] }, signal)).counts[0]!;
    }
    out.push({ text, tokens });
  }
  return out;
}

/** The fit record in words, for the CLI and the embedding set's warnings. */
export function fitWarnings(record: FitRecord): string[] {
  if (!record.checked) return [];
  if (record.documentsCut === 0) return [];
  const ex = record.examples
    .slice(0, 3)
    .map((e) => `'${e.docId}' ${e.tokens} → ${e.kept}`)
    .join(', ');
  return [
    `${record.documentsCut} document${record.documentsCut === 1 ? ' was' : 's were'} cut to the embedding model's context (${record.contextSize ?? '?'} tokens: at most ${record.maxTextTokens} tokens of text), ${record.tokensCut} token${record.tokensCut === 1 ? '' : 's'} cut in all (e.g. ${ex}); their vectors embed the beginning of the text only.`,
  ];
}
