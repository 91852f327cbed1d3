/**
 * The runs × topics evaluation of a conversation set: GFRC2, EGNP, EGF per attribute set, GFRC, R
 * and GF per attribute set for every conversation (conversationScores.ts), a cell per run and topic
 * (the mean when a run has several conversations for one topic), the mean per run over its topics,
 * and paired tests between every two runs over the topics both have, with the p-values of each
 * measure adjusted together (one family per measure: its run pairs), Holm by default.
 * Numbers come from core; this file only arranges them.
 */
import type { RVariant } from '../../core/fairness/gfrc';
import { compareScores } from '../../core/stats/compare';
import { adjustPValues, significantAt, type Correction } from '../../core/stats/multipleComparisons';
import type { AttributeSetDef, ConversationRow, ConversationSetRow, GluedFirstWord, NuggetRow } from '../../store/conversationsRepo';
import { measureNames, measureValues, scoreConversation } from './conversationScores';

export interface SetEvaluationOptions {
  rVariant: RVariant;
  test: 't' | 'randomization';
  correction: Correction;
  alpha: number;
  permutations: number;
  seed: number;
}

export const DEFAULT_SET_EVALUATION: SetEvaluationOptions = { rVariant: 'eq6', test: 't', correction: 'holm', alpha: 0.05, permutations: 10_000, seed: 42 };

export interface SetEvaluation {
  setId: number;
  setName: string;
  L: number;
  lMax: number;
  gluedFirstWord: GluedFirstWord;
  attributeSets: AttributeSetDef[];
  measures: string[];
  runs: string[];
  topics: string[];
  conversations: { conversationId: number; convId: string; run: string; topic: string; values: Record<string, number> | null; problems: string[] }[];
  cells: { run: string; topic: string; conversations: number; values: Record<string, number> | null }[];
  means: { run: string; topics: number; values: Record<string, number | null> }[];
  comparisons: {
    measure: string;
    runA: string;
    runB: string;
    topics: number;
    meanA: number;
    meanB: number;
    /** mean(B) − mean(A) over the paired topics. */
    delta: number;
    pValue: number;
    pAdjusted: number;
    significant: boolean;
  }[];
  settings: { rVariant: RVariant; test: string; correction: Correction; alpha: number; permutations: number | null; seed: number | null; family: string };
  /** SHA-256 of the set's JSONL export (its conversations and nuggets), for the manifest. */
  dataSha256: string;
  notes: string[];
}

export function evaluateSet(
  set: ConversationSetRow,
  conversations: readonly ConversationRow[],
  nuggetsByConversation: ReadonlyMap<number, readonly NuggetRow[]>,
  options: SetEvaluationOptions,
  dataSha256: string,
): SetEvaluation {
  const measures = measureNames(set);
  const notes: string[] = [];
  const rows = conversations.map((c) => {
    const scores = scoreConversation(set, nuggetsByConversation.get(c.id) ?? [], options.rVariant);
    if (scores.problems.length) notes.push(`${c.convId}: not scored (${scores.problems[0]}${scores.problems.length > 1 ? `; ${scores.problems.length - 1} more` : ''})`);
    return { conversationId: c.id, convId: c.convId, run: c.run, topic: c.topic, values: measureValues(set, scores), problems: scores.problems };
  });
  const runs = [...new Set(rows.map((r) => r.run))].sort();
  const topics = [...new Set(rows.map((r) => r.topic))].sort();

  const cells: SetEvaluation['cells'] = [];
  for (const run of runs) {
    for (const topic of topics) {
      const here = rows.filter((r) => r.run === run && r.topic === topic);
      if (here.length === 0) continue;
      if (here.length > 1) notes.push(`run '${run}', topic '${topic}': ${here.length} conversations; the cell is their mean`);
      const scored = here.filter((r) => r.values !== null).map((r) => r.values!);
      cells.push({ run, topic, conversations: here.length, values: scored.length ? meanRecord(measures, scored) : null });
    }
  }
  const cell = (run: string, topic: string) => cells.find((c) => c.run === run && c.topic === topic)?.values ?? null;

  const means = runs.map((run) => {
    const mine = topics.map((t) => cell(run, t)).filter((v): v is Record<string, number> => v !== null);
    const values: Record<string, number | null> = mine.length ? meanRecord(measures, mine) : Object.fromEntries(measures.map((m) => [m, null]));
    return { run, topics: mine.length, values };
  });
  if (new Set(means.map((m) => m.topics)).size > 1) notes.push('the runs cover different topics: means are over each run\'s own topics, tests over the topics both runs have');

  const comparisons: SetEvaluation['comparisons'] = [];
  let skipped = 0;
  for (const measure of measures) {
    const family: Omit<SetEvaluation['comparisons'][number], 'pAdjusted' | 'significant'>[] = [];
    for (let i = 0; i < runs.length; i++) {
      for (let j = i + 1; j < runs.length; j++) {
        const shared = topics.filter((t) => cell(runs[i]!, t) !== null && cell(runs[j]!, t) !== null);
        if (shared.length < 2) {
          skipped++;
          continue;
        }
        const a = shared.map((t) => cell(runs[i]!, t)![measure]!);
        const b = shared.map((t) => cell(runs[j]!, t)![measure]!);
        const c = compareScores(a, b, {
          paired: true,
          test: options.test,
          alpha: options.alpha,
          ...(options.test === 'randomization' ? { permutations: options.permutations, seed: options.seed } : {}),
        });
        family.push({ measure, runA: runs[i]!, runB: runs[j]!, topics: shared.length, meanA: c.meanA, meanB: c.meanB, delta: c.meanDifference, pValue: c.pValue });
      }
    }
    const adjusted = adjustPValues(
      family.map((f) => f.pValue),
      options.correction,
    );
    family.forEach((f, k) => comparisons.push({ ...f, pAdjusted: adjusted[k]!, significant: significantAt(adjusted[k]!, options.alpha) }));
  }
  if (skipped > 0 && runs.length > 1) notes.push('run pairs with fewer than 2 shared scored topics are not tested');

  return {
    setId: set.id,
    setName: set.name,
    L: set.L,
    lMax: set.lMax,
    gluedFirstWord: set.gluedFirstWord,
    attributeSets: set.attributeSets,
    measures,
    runs,
    topics,
    conversations: rows,
    cells,
    means,
    comparisons,
    settings: {
      rVariant: options.rVariant,
      test: options.test === 't' ? 'two-sided paired t-test' : 'two-sided paired randomization test',
      correction: options.correction,
      alpha: options.alpha,
      permutations: options.test === 'randomization' ? options.permutations : null,
      seed: options.test === 'randomization' ? options.seed : null,
      family: 'per measure: all pairs of runs',
    },
    dataSha256,
    notes: [...new Set(notes)],
  };
}

function meanRecord(measures: readonly string[], records: readonly Record<string, number>[]): Record<string, number> {
  return Object.fromEntries(measures.map((m) => [m, records.reduce((s, r) => s + r[m]!, 0) / records.length]));
}
