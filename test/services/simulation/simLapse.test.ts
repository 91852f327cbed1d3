/**
 * The simulated reader's lapse rate λ (engine/sim/profile.ts): on every call it loses a share λ of what
 * the documents give, p = c + (1 − c)(1 − λ)·min(1, Σ ã u), so no answer is certain (the exchangeable
 * noise of a non-degenerate null, services/simulation/power.ts). Hand-computed on two documents under a
 * primacy bias (ã = 1, 1/2), the useful one second: v = 1/2, c = 0.2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCollection, addSim, openWorkbench, type Workbench } from '../../planted/support';

let wb: Workbench;

beforeAll(() => {
  wb = openWorkbench('sim-lapse');
  addCollection(
    wb.services,
    'lapse',
    [
      { docId: 'd1', text: 'The ferry timetable lists departures at seven and nine.' },
      { docId: 'd2', text: 'The harbour lamp is painted green by the keeper.' },
      { docId: 'd3', text: 'Orchard notes: the harvest festival opens with apple bread.' },
    ],
    [
      { queryId: 'q', text: 'What colour is the harbour lamp?', answers: ['green'], task: 't', metric: 'accuracy', candidates: ['d1', 'd2'], attrs: { labels: ['green', 'red'] } },
      { queryId: 'm', text: 'What opens the harvest festival?', answers: ['apple bread'], task: 'm', metric: 'f1', candidates: ['d3'], subaspects: [{ aspect: 'food', answer: 'apple bread' }] },
    ],
    [
      { queryId: 'q', docId: 'd1', kind: 'utility', label: 0 },
      { queryId: 'q', docId: 'd2', kind: 'utility', label: 1 },
    ],
  );
});
afterAll(async () => wb.close());

const ANSWER_PROMPT = 'Document [1]: The ferry timetable lists departures at seven and nine.\nDocument [2]: The harbour lamp is painted green by the keeper.\n\nQuestion: What colour is the harbour lamp?\nAnswer: ';
const ASPECT_PROMPT = 'Document [1]: Orchard notes: the harvest festival opens with apple bread.\n\nQuestion: What opens the harvest festival?\nAnswer:';

function engine(name: string, lapse: number | undefined) {
  const m = addSim(wb.services, name, { collection: 'lapse', bias: 'primacy', closedBookAccuracy: 0.2, noise: 0, ...(lapse !== undefined ? { lapse } : {}) });
  return wb.services.models.engineFor({ kind: 'local', modelId: m.id });
}

describe('the reader lapse rate', () => {
  it('scales the documents’ help: p = c + (1 − c)(1 − λ)·v (hand-computed)', async () => {
    // v = ã₂·u₂ = 1/2 · 1 = 0.5; p = 0.2 + 0.8·(1 − λ)·0.5.
    const cases: [number | undefined, number][] = [
      [undefined, 0.6],
      [0, 0.6],
      [0.5, 0.4],
      [1, 0.2],
    ];
    for (const [lapse, p] of cases) {
      const e = engine(`Simulated reader (lapse ${String(lapse)})`, lapse);
      const r = await e.score({ prompt: ANSWER_PROMPT, continuations: ['green', 'red'] });
      expect(Math.exp(r.scores[0]!.sum)).toBeCloseTo(p, 12);
      expect(Math.exp(r.scores[1]!.sum)).toBeCloseTo(1 - p, 12);
    }
  });

  it('applies per sub-aspect: at noise 0 an aspect is answered iff c + (1 − c)(1 − λ)·cov ≥ 0.5', async () => {
    // One document covering the aspect fully (cov = 1), ã = 1: p = 0.2 + 0.8(1 − λ): 0.6 at λ = 0.5 (answered), 0.44 at λ = 0.7 (not).
    const ask = (e: ReturnType<typeof engine>) => e.generate({ prompt: ASPECT_PROMPT, maxTokens: 16, sampling: { temperature: 0 } });
    expect((await ask(engine('Simulated reader (aspect lapse 0.5)', 0.5))).text).toBe('apple bread.');
    expect((await ask(engine('Simulated reader (aspect lapse 0.7)', 0.7))).text).toBe('I do not know.');
  });

  it('is validated and named in the description', () => {
    expect(() => addSim(wb.services, 'Simulated reader (bad lapse)', { collection: 'lapse', lapse: 1.5 })).toThrow(/profile\.lapse/);
    const m = addSim(wb.services, 'Simulated reader (described lapse)', { collection: 'lapse', lapse: 0.25 });
    expect(String(m.metadata.description)).toContain('lapse 0.25');
  });
});
