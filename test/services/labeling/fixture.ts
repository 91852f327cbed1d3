/**
 * A small labeling fixture: a workspace with a generated tiny GGUF (threads 1) and a collection of
 * made-up queries with candidate sets, in the words the tiny model's vocabulary knows.
 */
import type { AppServices } from '../../../src-main/services/appServices';

export const COLLECTION = 'tiny-lab';

const WORDS = ['the relevant documents rank first', 'fair exposure for every group', 'a query with many answers', 'retrieval of documents and questions', 'people made work in the world', 'the first answer was good', 'old state of the work', 'ranking by exposure is fair'];

/** Documents d1..d12 and queries (`answers` replaces the reference answer of q1..q3): q1..qN rouge1 (perQuery candidates each), lamp3 a LaMP-3 query (labelled with accuracy), nocand without candidates, noanswer without an answer. */
export function addLabelCollection(services: AppServices, name = COLLECTION, answers: Record<string, string> = {}, queries = 3, perQuery = 4): number {
  const repo = services.collections.repo;
  const c = repo.create(name);
  const docs = Array.from({ length: queries * perQuery }, (_, i) => ({
    docId: `d${i + 1}`,
    title: i % 2 === 0 ? `Title ${i + 1}` : '',
    text: `${WORDS[i % WORDS.length]} ${WORDS[(i * 3 + 1) % WORDS.length]}`,
    attrs: { score: String((i % 5) + 1) },
  }));
  repo.addDocuments(c.id, docs);
  const qs = Array.from({ length: queries }, (_, qi) => ({
    queryId: `q${qi + 1}`,
    text: `${WORDS[(qi + 2) % WORDS.length]} question ${qi + 1}`,
    answers: [answers[`q${qi + 1}`] ?? 'the relevant documents for people in the world'],
    task: 'toy',
    metric: 'rouge1',
    candidates: docs.slice(qi * perQuery, (qi + 1) * perQuery).map((d) => d.docId),
  }));
  repo.addQueries(c.id, [
    ...qs,
    { queryId: 'lamp3', text: 'What is the score of the following review on a scale of 1 to 5? review: good work', answers: ['4'], task: 'LaMP-3', metric: 'mae', candidates: ['d1', 'd2'] },
    { queryId: 'nocand', text: 'fair exposure of documents', answers: ['x'], task: 'toy', metric: 'rouge1' },
    { queryId: 'noanswer', text: 'no answer here', answers: [], task: 'toy', metric: 'rouge1', candidates: ['d1'] },
  ]);
  return c.id;
}
