import { describe, expect, it } from 'vitest';
import { createAppServices } from '../../src-main/services/appServices';
import { DEMO_COLLECTION_NAME, loadDemoCollection } from '../../src-main/services/collectionsDemo';

describe('demo collection', () => {
  it('loads three tasks with candidates, sub-aspects and providers, and loading again changes nothing', async () => {
    const services = createAppServices(':memory:', { transport: 'http' });
    try {
      const first = await loadDemoCollection(services);
      expect(first.changed).toBe(true);
      const c = services.collections.get(first.collectionId);
      expect(c).toMatchObject({ name: DEMO_COLLECTION_NAME, counts: { documents: 48, queries: 12, judgments: 36 + 19 } });
      expect(c.tasks).toEqual([
        { task: 'headline', metric: 'rougeL', count: 4 },
        { task: 'movie-tag', metric: 'accuracy', count: 4 },
        { task: 'multi-aspect', metric: 'rougeL', count: 4 },
      ]);
      expect(c.providers.every((p) => p.value !== null)).toBe(true);
      const tag = services.collections.getQuery(first.collectionId, 'tag-u1');
      expect(tag.query).toMatchObject({ answers: ['comedy'], candidates: ['tag-u1-p1', 'tag-u1-p2', 'tag-u1-p3', 'tag-u1-p4', 'tag-u1-p5'] });
      expect(tag.documents[0]!.judgments[0]).toMatchObject({ kind: 'utility', label: 1, provenance: { delta: 1, baseline: 0, utility: 1, generator: 'hand-written (illustrative)' } });
      const head = services.collections.getQuery(first.collectionId, 'head-u1');
      expect(head.documents[2]!.judgments[0]).toMatchObject({ label: 0, provenance: { delta: -0.06 } });
      const ma = services.collections.getQuery(first.collectionId, 'ma-q3');
      expect(ma.query.subaspects).toHaveLength(4);
      // Without candidates: the judged documents, by id.
      expect(ma.documents.map((d) => [d.doc.docId, d.judgments[0]!.label])).toEqual([
        ['ma-d10', 2],
        ['ma-d11', 1],
        ['ma-d12', 2],
        ['ma-d2', 0],
        ['ma-d9', 2],
      ]);
      const hash = c.contentHash;
      const again = await loadDemoCollection(services);
      expect(again.changed).toBe(false);
      expect(again.steps.every((s) => s.noop)).toBe(true);
      expect(services.collections.get(first.collectionId).contentHash).toBe(hash);
    } finally {
      await services.close();
    }
  });
});
