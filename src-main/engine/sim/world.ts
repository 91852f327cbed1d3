/**
 * What a simulated reader knows: the documents and queries of its collection with the planted utility
 * of every (query, document) pair. Built by the service layer from the stored collection
 * (services/simulation/simWorld.ts); the engine only ever reads it.
 */
export interface SimDoc {
  id: string;
  title: string;
  text: string;
}

export interface SimQuery {
  id: string;
  text: string;
  task: string | null;
  answers: string[];
  /** The task's label set when the query has one (e.g. LaMP-2 tags); wrong answers are drawn from it. */
  labels: string[] | null;
  subaspects: { aspect: string; answer: string }[];
  /** The per-query candidate set, or null when any document of the collection may be shown. */
  candidates: string[] | null;
  /** Planted u(q, d) ∈ [0, 1]; absent = 0. */
  utility: Map<string, number>;
}

export interface SimWorld {
  collection: string;
  /** The collection's content hash when the world was built (part of the cache identity). */
  contentHash: string;
  docs: SimDoc[];
  queries: SimQuery[];
}
