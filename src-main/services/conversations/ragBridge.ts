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
 * A Fair RAG run (src-main/experiments/fair-rag) is connected by `conversationsFromFairRagRun`: for
 * one condition and sample, fairRagAnswers.ts reads the query text, the generated answer, the
 * sampled ranking with each document's provider, and the attribution judgments from the run items.
 */
import { ApiFailure } from '../../api/router';
import type { AttributeSetDef } from '../../store/conversationsRepo';
import { ExperimentsRepo } from '../../store/experimentsRepo';
import type { ConversationsService, ImportReport } from './conversationsService';
import { answersFromFairRagRun } from './fairRagAnswers';
import type { RagAnswer } from './ragAnswer';

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

export interface FairRagConversationsRequest {
  setName: string;
  runId: number;
  /** The arm, e.g. `bm25/alpha=2`, `bm25/deterministic`, `oracle`. */
  condition: string;
  /** Sample index within the arm (default 0). */
  sample?: number | undefined;
  attribute?: string | undefined;
  L?: number | undefined;
  lMax?: number | undefined;
}

/** Conversations from one condition and sample of a Fair RAG run (queries without an answer are skipped and reported). */
export function conversationsFromFairRagRun(service: ConversationsService, req: FairRagConversationsRequest): RagConversationsReport & { skipped: string[] } {
  const { run, answers, skipped } = answersFromFairRagRun(new ExperimentsRepo(service.db), req.runId, req.condition, req.sample ?? 0);
  if (answers.length === 0) throw new ApiFailure('conflict', `run ${req.runId} has no generated answers for '${req.condition}' sample ${req.sample ?? 0} yet`, 'condition');
  const report = conversationsFromAnswers(service, { setName: req.setName, run, answers, attribute: req.attribute, L: req.L, lMax: req.lMax });
  const notes = skipped.length ? [...report.notes, `${skipped.length} quer${skipped.length === 1 ? 'y has' : 'ies have'} no answer for this sample and ${skipped.length === 1 ? 'was' : 'were'} left out: ${skipped.join(', ')}`] : report.notes;
  return { ...report, notes, skipped };
}
