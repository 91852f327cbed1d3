/**
 * The answers of a Fair RAG run (src-main/experiments/fair-rag, run items of migration 0006) as
 * input of ragBridge.ts: for one condition (e.g. `bm25/alpha=2`) and one sample index, each query's
 * sampled ranking gives the documents (with the provider snapshot of the query item), the sample's
 * generation gives the answer, and the NLI judgments (or, with the citation judge, the cited
 * positions) say which documents the answer is attributed to. Queries without that sample or
 * without its generation are left out and counted.
 */
import { ApiFailure } from '../../api/router';
import { generationKey, indexRunItems, judgmentKey } from '../../experiments/fair-rag/items';
import type { ExperimentsRepo } from '../../store/experimentsRepo';
import type { RagAnswer } from './ragAnswer';

export interface FairRagAnswers {
  /** `<experiment>#<run id>/<condition>` (with `/s<sample>` for a sample other than 0). */
  run: string;
  answers: RagAnswer[];
  /** Queries of the run that had no such sample or no generation for it. */
  skipped: string[];
}

export function answersFromFairRagRun(repo: ExperimentsRepo, runId: number, condition: string, sample = 0): FairRagAnswers {
  const run = repo.run(runId);
  if (!run) throw new ApiFailure('not-found', `no run with id ${runId}`, 'runId');
  if (run.kind !== 'fair-rag') throw new ApiFailure('validation', `run ${runId} is a '${run.kind}' run, not a Fair RAG run`, 'runId');
  const conditions = repo.conditions(runId).filter((c) => c !== '');
  if (!conditions.includes(condition)) {
    throw new ApiFailure('validation', `run ${runId} has no condition '${condition}' (it has ${conditions.map((c) => `'${c}'`).join(', ') || 'none yet'})`, 'condition');
  }
  const data = indexRunItems(repo.items(runId));
  const answers: RagAnswer[] = [];
  const skipped: string[] = [];
  for (const [qid, query] of [...data.queries.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const s = data.samples.get(qid)?.get(condition)?.find((x) => x.sample === sample);
    const generation = s ? data.generations.get(generationKey(qid, s.promptHash)) : undefined;
    if (!s || !generation) {
      skipped.push(qid);
      continue;
    }
    const cited = new Set(generation.citations ?? []);
    answers.push({
      queryId: qid,
      query: query.text,
      answer: generation.output,
      documents: s.ranking.map((docId, i) => {
        const provider = query.candidates.find((c) => c.docId === docId)?.provider ?? null;
        const judged = data.judgments.get(judgmentKey(qid, generation.outputHash, docId));
        const attributed = judged ? judged.entails : generation.citations ? cited.has(i + 1) : undefined;
        return { docId, attrs: provider === null ? {} : { provider }, ...(attributed !== undefined ? { attributed } : {}) };
      }),
    });
  }
  return { run: `${run.experimentName}#${runId}/${condition}${sample === 0 ? '' : `/s${sample}`}`, answers, skipped };
}
