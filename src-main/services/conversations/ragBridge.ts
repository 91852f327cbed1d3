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
 * one condition (or several, or all of them, in one import) and one sample, fairRagAnswers.ts reads the query text, the generated answer, the
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
  /** The arm, e.g. `bm25/alpha=2`, `bm25/deterministic`, `oracle`; or give `conditions`. */
  condition?: string | undefined;
  /** Several arms at once: `all` (every condition of the run) or a list; one import, all or nothing. */
  conditions?: 'all' | readonly string[] | undefined;
  /** Sample index within the arm (default 0). */
  sample?: number | undefined;
  attribute?: string | undefined;
  L?: number | undefined;
  lMax?: number | undefined;
}

export type FairRagConversationsReport = RagConversationsReport & {
  /** Queries without an answer for the sample (with several conditions: `condition/query`). */
  skipped: string[];
  /** The conditions whose answers became conversations, in order. */
  conditions: string[];
};

/**
 * Conversations from one condition, several, or all conditions of a Fair RAG run, for one sample
 * (queries without an answer are skipped and reported). Several conditions are one import: the
 * attribute set's groups are the providers seen over all of them, and nothing is written when any
 * conversation is refused. A condition with no answer at all is left out with a note; none at all is
 * an error.
 */
export function conversationsFromFairRagRun(service: ConversationsService, req: FairRagConversationsRequest): FairRagConversationsReport {
  const repo = new ExperimentsRepo(service.db);
  const sample = req.sample ?? 0;
  if ((req.condition === undefined) === (req.conditions === undefined)) throw new ApiFailure('validation', 'give a condition, or conditions (all or a list), not both', 'condition');
  if (req.condition !== undefined) {
    const { run, answers, skipped } = answersFromFairRagRun(repo, req.runId, req.condition, sample);
    if (answers.length === 0) throw new ApiFailure('conflict', `run ${req.runId} has no generated answers for '${req.condition}' sample ${sample} yet`, 'condition');
    const report = conversationsFromAnswers(service, { setName: req.setName, run, answers, attribute: req.attribute, L: req.L, lMax: req.lMax });
    const notes = skipped.length ? [...report.notes, `${skipped.length} quer${skipped.length === 1 ? 'y has' : 'ies have'} no answer for this sample and ${skipped.length === 1 ? 'was' : 'were'} left out: ${skipped.join(', ')}`] : report.notes;
    return { ...report, notes, skipped, conditions: [req.condition] };
  }
  const run = repo.run(req.runId);
  if (!run) throw new ApiFailure('not-found', `no run with id ${req.runId}`, 'runId');
  const wanted = req.conditions === 'all' ? repo.conditions(req.runId) : [...new Set(req.conditions)];
  if (wanted.length === 0) throw new ApiFailure('conflict', `run ${req.runId} has no conditions yet`, 'conditions');
  const answers: RagAnswer[] = [];
  const skipped: string[] = [];
  const used: string[] = [];
  const empty: string[] = [];
  for (const condition of wanted) {
    const got = answersFromFairRagRun(repo, req.runId, condition, sample);
    if (got.answers.length === 0) {
      empty.push(condition);
      continue;
    }
    used.push(condition);
    answers.push(...got.answers.map((a) => ({ ...a, run: got.run })));
    skipped.push(...got.skipped.map((q) => `${condition}/${q}`));
  }
  if (answers.length === 0) throw new ApiFailure('conflict', `run ${req.runId} has no generated answers for sample ${sample} in ${wanted.map((c) => `'${c}'`).join(', ')} yet`, 'conditions');
  const report = conversationsFromAnswers(service, { setName: req.setName, run: `${run.experimentName}#${req.runId}`, answers, attribute: req.attribute, L: req.L, lMax: req.lMax });
  const notes = [...report.notes];
  if (empty.length) notes.push(`${empty.length} condition(s) have no answer for sample ${sample} and were left out: ${empty.join(', ')}`);
  if (skipped.length) notes.push(`${skipped.length} (condition, query) pair(s) have no answer for this sample and were left out: ${skipped.join(', ')}`);
  return { ...report, notes, skipped, conditions: used };
}
