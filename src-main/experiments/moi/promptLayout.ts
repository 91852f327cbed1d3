/**
 * The one prompt layout of a MoI run (spec `prompt`), rendered for generation and cut into the
 * scoring request of Eq. 3 (reference notes moi.md §2.1):
 *
 *   generation:  instruction · item₁ · sep · … · item_L · questionBefore · q · questionAfter · answer
 *   scoring:     prompt = instruction;  continuation = item₁ · sep · … · item_L · questionBefore · q [· suffix]
 *
 * One teacher-forced pass over the continuation gives the log-probabilities of every passage token
 * (which do not see q: the prior term log P(p_π1 … p_πL)) and of every query token (log P(q | ·)).
 * The continuation stops at the end of the query text: `questionAfter` and the answer cue are not
 * scored. A `suffix` (LongLLMLingua's code variant appends " We can get the answer to this question
 * in the given documents.") is scored after q; being after q it leaves the q tokens' log-probabilities
 * unchanged, so one pass serves both readings.
 *
 * The default passage item "[{{index}}] {{title}}: {{text}}" reads "[2] text" for an untitled
 * document, as the generic QA template's {{documents}} list does.
 *
 * Segments are character ranges of the continuation; `segmentLogprobs` maps the engine's tokens
 * back onto them (tokenAlignment.ts). A passage segment is the whole rendered item ("[2] text"),
 * the question segment is the query text only.
 */
import { parsePromptTemplate, renderPrompt, type PromptDocument, type PromptTemplate } from '../../core/prompts/index';
import type { MoiPromptLayout } from '../../api/contract/moi';

export interface Segment {
  start: number;
  end: number;
}

export interface ScoringText {
  prompt: string;
  continuation: string;
  /** One per passage in prompt order. */
  passages: Segment[];
  question: Segment;
  /** The query text plus the suffix (present when a suffix was asked for). */
  questionWithSuffix?: Segment;
}

export const LLMLINGUA_CODE_SUFFIX = ' We can get the answer to this question in the given documents.';

const QUERY_TAG = /\{\{\s*query\s*\}\}/;
/** "{{title}}: " is left out for a document without a title, as core/prompts' {{documents}} writes "[1] text". */
const UNTITLED = /\{\{\s*title\s*\}\}:\s?/g;

export class PromptLayout {
  private readonly item = new Map<string, PromptTemplate>();
  private readonly questionBefore: string;
  private readonly questionAfter: string;

  constructor(readonly layout: MoiPromptLayout) {
    const m = QUERY_TAG.exec(layout.question);
    if (!m) throw new RangeError('the question template has no {{query}}');
    this.questionBefore = layout.question.slice(0, m.index);
    this.questionAfter = layout.question.slice(m.index + m[0].length);
    this.itemTemplate(1); // parse once now: a bad passage template fails before any call
  }

  private itemTemplate(index: number, titled = true): PromptTemplate {
    const key = `${index}:${titled}`;
    let t = this.item.get(key);
    if (!t) {
      // {{index}} is the position in the prompt, which a one-document render cannot know.
      let body = this.layout.passage.replace(/\{\{\s*index\s*\}\}/g, String(index));
      if (!titled) body = body.replace(UNTITLED, '');
      this.item.set(key, (t = parsePromptTemplate(`{{#documents}}${body}{{/documents}}`)));
    }
    return t;
  }

  /** The rendered passage at 1-based position `position`; an untitled document drops "{{title}}: ". */
  renderItem(doc: PromptDocument, position: number): string {
    return renderPrompt(this.itemTemplate(position, doc.title.trim() !== ''), { query: '', documents: [doc] });
  }

  /** Items joined by the separator, with each item's range. */
  private passageBlock(docs: readonly PromptDocument[], firstPosition = 1): { text: string; segments: Segment[] } {
    let text = '';
    const segments: Segment[] = [];
    docs.forEach((d, i) => {
      if (i > 0) text += this.layout.separator;
      const item = this.renderItem(d, firstPosition + i);
      segments.push({ start: text.length, end: text.length + item.length });
      text += item;
    });
    return { text, segments };
  }

  /** The final-answer prompt for passages in this order. */
  generationPrompt(docs: readonly PromptDocument[], query: string): string {
    return this.layout.instruction + this.passageBlock(docs).text + this.questionBefore + query + this.questionAfter + this.layout.answer;
  }

  /** The scoring request of one ordering (Eq. 3): prompt = instruction, continuation = passages + question. */
  scoring(docs: readonly PromptDocument[], query: string, suffix?: string): ScoringText {
    return this.scoringAfter([], docs, query, suffix);
  }

  /**
   * Scoring with a fixed, unscored head: prompt = instruction + head passages + separator,
   * continuation = the passages of `docs` (positions after the head) + question. Bayes saliency+
   * (Eq. 2) scores each remaining candidate after the passages selected so far this way, so every
   * candidate of a step shares the prompt (one KV prefix).
   */
  scoringAfter(head: readonly PromptDocument[], docs: readonly PromptDocument[], query: string, suffix?: string): ScoringText {
    const headBlock = this.passageBlock(head);
    const prompt = this.layout.instruction + headBlock.text + (head.length > 0 ? this.layout.separator : '');
    const block = this.passageBlock(docs, head.length + 1);
    let continuation = block.text + this.questionBefore;
    const question = { start: continuation.length, end: continuation.length + query.length };
    continuation += query;
    const out: ScoringText = { prompt, continuation, passages: block.segments, question };
    if (suffix !== undefined) {
      continuation += suffix;
      out.continuation = continuation;
      out.questionWithSuffix = { start: question.start, end: continuation.length };
    }
    return out;
  }
}

/** Query-likelihood prompt of QG (UPR, Sachan et al. 2022): prompt = template with the passage, continuation = q. */
export function uprScoring(template: string, doc: PromptDocument, query: string): ScoringText {
  const prompt = renderPrompt(parsePromptTemplate(`{{#documents}}${template}{{/documents}}`), { query: '', documents: [doc] });
  return { prompt, continuation: query, passages: [], question: { start: 0, end: query.length } };
}
