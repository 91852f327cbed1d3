/**
 * Default prompt templates. Each task has a pair: `augmented` (the query with documents) and
 * `baseline` (the "no documents" variant Algorithm 1 scores u_0 with).
 *
 * LaMP 1–7: Fair RAG's augmented input prompt (AIP; fair-rag.md §6, `data/lamp_handler.py` of
 * kimdanny/Fair-RAG): per-item strings (PPEP) joined by ", and ", no quotes around fields, the
 * question itself (`{{query}}`, LaMP's input) after them — except LaMP-1, whose titles go before
 * "which reference is related?". The baseline is the bare question (Fair-RAG's
 * `utility_labels/inference.py`). Document fields as the LaMP importer stores a profile item:
 * title = `title`, text = `text`|`abstract`|`description`, other fields (tag, score) in attrs.
 *
 * Generic QA: a numbered document list, then the question.
 */

export interface TaskTemplates {
  /** Stable name for provenance, e.g. 'fair-rag/LaMP-2' or 'generic-qa'. */
  name: string;
  augmented: string;
  baseline: string;
}

const BARE_QUESTION = '{{query}}';
const AND = '{{#documents separator=", and "}}';

/** Fair-RAG's AIP per LaMP task number (1–7). */
const LAMP_AUGMENTED: Record<number, string> = {
  // pre + titles + ", which reference is related?" + post (the question split at that phrase).
  1: `{{query|before:"which reference is related?"}}${AND}{{title}}{{/documents}}, which reference is related?{{query|after:"which reference is related?"}}`,
  2: `${AND}the tag for the movie: {{text}} is {{attrs.tag}}{{/documents}}. {{query}}`,
  3: `${AND}{{attrs.score}} is the score for {{text}}{{/documents}}. {{query}}`,
  4: `${AND}{{title}} is the title for {{text}}{{/documents}}. {{query}}`,
  5: `${AND}{{title}} is the title for {{text}}{{/documents}}. Following the given patterns {{query}}`,
  6: `${AND}{{title}} is the title for {{text}}{{/documents}}. {{query}}`,
  7: `${AND}{{text}}{{/documents}} are written by a person. Following the given patterns {{query}}`,
};

/** The Fair-RAG templates of LaMP task `n` (1–7). */
export function lampTemplates(n: number): TaskTemplates {
  const augmented = LAMP_AUGMENTED[n];
  if (augmented === undefined) throw new RangeError(`no LaMP task ${n} (LaMP has tasks 1 to 7)`);
  return { name: `fair-rag/LaMP-${n}`, augmented, baseline: BARE_QUESTION };
}

/** Question answering over any collection: the documents as a numbered list, then the question. */
export const GENERIC_QA_TEMPLATES: TaskTemplates = {
  name: 'generic-qa',
  augmented: 'Answer the question using the documents.\n\nDocuments:\n{{documents}}\n\nQuestion: {{query}}\nAnswer:',
  baseline: 'Answer the question.\n\nQuestion: {{query}}\nAnswer:',
};
