/**
 * A simulated reader answers from the collection as it is now: after a new utility label the model
 * service rebuilds it (new world, new cache identity), so the planted truth a run sees is the stored one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCollection, addSim, openWorkbench, type Workbench } from '../../planted/support';

let wb: Workbench;

beforeAll(() => {
  wb = openWorkbench('simworld');
});
afterAll(async () => wb.close());

describe('simulated reader and its collection', () => {
  it('a new utility label changes its answer; the old answer stays cached under the old identity', async () => {
    const s = wb.services;
    const id = addCollection(
      s,
      'world',
      [{ docId: 'd1', text: 'The lighthouse keeper paints the stairs blue every spring.' }],
      [{ queryId: 'q', text: 'What colour are the lighthouse stairs?', answers: ['blue'], task: 't', metric: 'accuracy', candidates: ['d1'], attrs: { labels: ['blue', 'red'] } }],
    );
    const model = addSim(s, 'Simulated reader (world)', { collection: 'world', bias: 'uniform', closedBookAccuracy: 0, noise: 0 });
    const prompt = 'Document [1]: The lighthouse keeper paints the stairs blue every spring.\n\nQuestion: What colour are the lighthouse stairs?\nAnswer:';
    const ask = () => s.models.engineFor({ kind: 'local', modelId: model.id }).generate({ prompt, maxTokens: 8, sampling: { temperature: 0 } });
    // No label yet: u = 0, closed-book accuracy 0 → the wrong label.
    expect((await ask()).text).toBe('red');
    const before = await s.models.engineFor({ kind: 'local', modelId: model.id }).identity();
    s.collections.repo.addJudgments(id, [{ queryId: 'q', docId: 'd1', kind: 'utility', label: 1 }]);
    expect((await ask()).text).toBe('blue');
    const after = await s.models.engineFor({ kind: 'local', modelId: model.id }).identity();
    expect(after.outputAffectingSettings.collectionHash).not.toBe(before.outputAffectingSettings.collectionHash);
    // Unchanged collection: the same engine instance is reused.
    expect(s.models.engineFor({ kind: 'local', modelId: model.id })).toBe(s.models.engineFor({ kind: 'local', modelId: model.id }));
  });
});
