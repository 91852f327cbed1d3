/**
 * One RAG answer as ragBridge.ts turns it into a conversation, in a module of its own so that the
 * answers' sources (fairRagAnswers.ts) and the bridge do not import each other (issue 37).
 */
export interface RagAnswer {
  /** Becomes the conversation's topic. */
  queryId: string;
  query: string;
  answer: string;
  /** Overrides the request's run for this answer. */
  run?: string | undefined;
  documents: { docId: string; attrs?: Record<string, unknown> | undefined; attributed?: boolean | undefined }[];
}
