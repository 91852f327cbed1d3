/**
 * From RAG answers to a conversation set, so that generated answers can be annotated with nuggets
 * and scored with GFRC / GFRC2: one conversation per (run, query) with the query as the user turn and
 * the answer as the system turn, and an attribute set over the documents' providers (or any other
 * document attribute), whose groups are the values seen in the documents the answers were given.
 *
 * What it does not do: propose nuggets. Which words of an answer are a nugget, how relevant it is and
 * which provider it credits are the annotator's call (the Conversations screen); the documents each
 * answer saw are kept in the conversation's attrs (`rag.documents`, with their group and whether
 * they were attributed) so the screen can show them beside the answer.
 *
 * Connecting a Fair RAG run (src-main/experiments/fair-rag, run items of migration 0006): for one
 * condition and sample, each query item gives `query` (QueryPayload.text), the sample's generation
 * gives `answer` (GenerationPayload.output), the sample's ranking gives `documents` with
 * `attrs.provider` from the query's CandidateSnapshot, and `attributed` is the NLI judgment's
 * `entails` (or the generator's citations). The run name is then e.g. `<experiment>#<run>/<condition>`.
 */
import { ApiFailure } from '../../api/router';
import type { AttributeSetDef } from '../../store/conversationsRepo';
import type { ConversationsService, ImportReport } from './conversationsService';

export interface RagAnswer {
  /** Becomes the conversation's topic. */
  queryId: string;
  query: string;
  answer: string;
  /** Overrides the request's run for this answer. */
  run?: string | undefined;
  documents: { docId: string; attrs?: Record<string, unknown> | undefined; attributed?: boolean | undefined }[];
}

export interface RagConversationsRequest {
  setName: string;
  /** Run name of the answers (e.g. the retrieval condition). */
  run: string;
  answers: RagAnswer[];
  /** Document attribute that gives the group (default `provider`). */
  attribute?: string | undefined;
  /** Name of the attribute set (default: the attribute in capitals, e.g. PROVIDER). */
  attributeSetName?: string | undefined;
  L?: number | undefined;
  lMax?: number | undefined;
}

export interface RagConversationsReport extends ImportReport {
  attributeSet: AttributeSetDef | null;
}

/** Documents without the attribute are in this group. */
export const UNKNOWN_GROUP = '(none)';

export function conversationsFromAnswers(service: ConversationsService, req: RagConversationsRequest): RagConversationsReport {
  const attribute = req.attribute ?? 'provider';
  const setName = req.attributeSetName ?? attribute.toUpperCase();
  const groupOf = (attrs: Record<string, unknown> | undefined) => {
    const v = attrs?.[attribute];
    return v === undefined || v === null || v === '' ? UNKNOWN_GROUP : String(v);
  };
  const groups = [...new Set(req.answers.flatMap((a) => a.documents.map((d) => groupOf(d.attrs))))].sort();

  const existing = service.findSet(req.setName);
  let attributeSet: AttributeSetDef | null = null;
  const notes: string[] = [];
  if (existing) {
    attributeSet = existing.attributeSets.find((a) => a.name === setName) ?? null;
    const missing = groups.filter((g) => !attributeSet?.groups.includes(g));
    if (attributeSet && missing.length) {
      throw new ApiFailure('conflict', `attribute set '${setName}' of '${existing.name}' has no group for ${missing.map((g) => `'${g}'`).join(', ')}`, 'answers');
    }
  } else if (groups.length >= 2) {
    attributeSet = { name: setName, kind: 'nominal', groups, target: groups.map(() => 1 / groups.length), measure: 'jsd' };
  } else {
    notes.push(`the documents have ${groups.length} distinct '${attribute}' value(s); an attribute set needs 2, so none was created`);
  }

  const lines = req.answers.map((a) => {
    const run = a.run ?? req.run;
    return JSON.stringify({
      id: `${run}/${a.queryId}`,
      topic: a.queryId,
      run,
      turns: [
        { role: 'user', text: a.query },
        { role: 'system', text: a.answer },
      ],
      attrs: { rag: { documents: a.documents.map((d) => ({ docId: d.docId, group: groupOf(d.attrs), ...(d.attributed !== undefined ? { attributed: d.attributed } : {}) })) } },
    });
  });
  const report = service.importText(
    {
      setName: req.setName,
      L: req.L,
      lMax: req.lMax,
      attributeSets: existing ? undefined : attributeSet ? [attributeSet] : [],
      description: `Generated answers (${attribute} groups from the documents given to the generator).`,
    },
    { name: `${req.run}.answers`, content: `${lines.join('\n')}\n` },
  );
  return { ...report, notes: [...notes, ...report.notes.filter((n) => !n.includes('were kept'))], attributeSet };
}
