/**
 * Planted truth, utility labeling (Fair RAG Algorithm 1): on the demo collection, a simulated reader
 * whose planted utility is the collection's imported utility labels (resources/demo/utility_mapping.tsv,
 * read here from the file, not from the code under test) is labelled by the real labeling job; at noise
 * 0 the LLM labels equal the planted useful set of every labelled demo query exactly. A reader whose
 * utility rule is "a document is useful when it contains an answer" recovers that set instead.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UtilityLabelRequest } from '../../src-main/api/contract/labeling';
import type { UtilityLabelReport } from '../../src-main/api/contract/labeling';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { addCollection, addSim, openWorkbench, type Workbench } from './support';

let wb: Workbench;
let demoId: number;

beforeAll(async () => {
  wb = openWorkbench('labels');
  await loadDemoCollection(wb.services);
  demoId = wb.services.collections.repo.byName('Fairground demo')!.id;
});

afterAll(async () => wb.close());

async function label(collectionId: number, modelId: number): Promise<UtilityLabelReport> {
  const req = UtilityLabelRequest.parse({ collectionId, generator: { kind: 'local', modelId }, minUseful: 1 });
  const job = await wb.services.jobs.wait(wb.services.labeling.start(req).id);
  expect(job.error).toBeNull();
  return job.result as UtilityLabelReport;
}

function llmLabels(collectionId: number, queryId: string): Map<string, number> {
  const rows = wb.services.collections.repo.judgmentsOf(collectionId, queryId).filter((j) => j.kind === 'utility' && j.source === 'llm');
  return new Map(rows.map((j) => [j.docId, j.label]));
}

describe('utility labeling recovers the planted useful set', () => {
  it('every labelled demo query: LLM labels = the imported utility mapping (noise 0)', async () => {
    // The planted truth, read from the shipped file.
    const planted = new Map<string, Map<string, number>>();
    for (const line of readFileSync(join('resources', 'demo', 'utility_mapping.tsv'), 'utf8').trim().split('\n').slice(1)) {
      const [qid, pid, label] = line.split('\t');
      if (!planted.has(qid!)) planted.set(qid!, new Map());
      planted.get(qid!)!.set(pid!, Number(label));
    }
    expect(planted.size).toBe(8);
    const sim = addSim(wb.services, 'Simulated reader (labels)', { collection: 'Fairground demo', bias: 'uniform', closedBookAccuracy: 0.2, noise: 0, seed: 3 });
    expect(sim.kind).toBe('sim');
    const report = await label(demoId, sim.id);
    expect(report.queries).toBe(8);
    expect(report.calls.total).toBe(8 + 36);
    for (const [qid, docs] of planted) {
      const got = llmLabels(demoId, qid);
      expect(Object.fromEntries(got), qid).toEqual(Object.fromEntries(docs));
    }
    // Useful per query as the file says: at least two each (Fair RAG's filter keeps all 8).
    expect([...planted.values()].map((m) => [...m.values()].filter((v) => v === 1).length)).toEqual([3, 3, 3, 3, 3, 3, 2, 2]);
  });

  it('"a document is useful when it contains an answer": the labels are exactly the containing documents', async () => {
    const docs = [
      { docId: 'd1', text: 'The capital of Freedonia is Marvel City, on the river.' },
      { docId: 'd2', text: 'Freedonia exports cheese and wool.' },
      { docId: 'd3', text: 'Visitors to Marvel City should see the old bridge.' },
      { docId: 'd4', text: 'The longest river of Sylvania is the Brune.' },
      { docId: 'd5', text: 'Sylvania borders Freedonia to the north.' },
    ];
    const queries = [
      { queryId: 'q1', text: 'What is the capital of Freedonia?', answers: ['Marvel City'], task: 'qa', metric: 'accuracy', candidates: ['d1', 'd2', 'd3', 'd5'] },
      { queryId: 'q2', text: 'Which river is the longest in Sylvania?', answers: ['the Brune'], task: 'qa', metric: 'accuracy', candidates: ['d2', 'd4', 'd5'] },
    ];
    const id = addCollection(wb.services, 'answers', docs, queries);
    const sim = addSim(wb.services, 'Simulated reader (answers)', { collection: 'answers', utility: 'answer-in-document', bias: 'primacy', closedBookAccuracy: 0, noise: 0 });
    await label(id, sim.id);
    // Independent: which candidate texts contain an answer (lower case).
    for (const q of queries) {
      const expected = Object.fromEntries(q.candidates.map((d) => [d, docs.find((x) => x.docId === d)!.text.toLowerCase().includes(q.answers[0]!.toLowerCase()) ? 1 : 0]));
      expect(Object.fromEntries(llmLabels(id, q.queryId))).toEqual(expected);
    }
    expect(Object.fromEntries(llmLabels(id, 'q1'))).toEqual({ d1: 1, d2: 0, d3: 1, d5: 0 });
  });
});
