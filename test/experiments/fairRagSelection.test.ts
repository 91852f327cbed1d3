/**
 * A Fair RAG run never "succeeds" over nothing (issue 15 item 1): a task no query has is an error
 * naming `tasks[i]` and the collection's tasks; a selection where every query is skipped fails
 * with the reasons, counted.
 */
import { describe, expect, it } from 'vitest';
import { loadFairRagData } from '../../src-main/experiments/fair-rag/data';
import { createAppServices } from '../../src-main/services/appServices';
import { loadDemoCollection, DEMO_COLLECTION_NAME } from '../../src-main/services/collectionsDemo';

describe('Fair RAG query selection', () => {
  it('refuses an unknown task and an empty selection with reasons', async () => {
    const s = createAppServices(':memory:', { transport: 'http' });
    try {
      await loadDemoCollection(s);
      const base = { collection: DEMO_COLLECTION_NAME, queries: 'all' as const, minUseful: 1, retrievalQuery: 'text', utilityMetric: 'auto', providerAttribute: 'provider' } as unknown as Parameters<typeof loadFairRagData>[0];
      const tasks = [...new Set(s.collections.repo.listQueries(1, { offset: 0, limit: 100 }).items.map((q) => q.task))].sort();
      expect(tasks.length).toBeGreaterThan(1);
      expect(() => loadFairRagData({ ...base, tasks: [tasks[0]!, 'LaMP-9'] }, s.collections.repo)).toThrow(
        `tasks[1]: no query of collection '${DEMO_COLLECTION_NAME}' has task 'LaMP-9' (its tasks: ${tasks.join(', ')})`,
      );
      const ok = loadFairRagData({ ...base, tasks: [tasks[0]!] }, s.collections.repo);
      expect(ok.queries.length).toBeGreaterThan(0);
      // Every query needs more useful candidates than any has: nothing usable.
      expect(() => loadFairRagData({ ...base, minUseful: 1000 }, s.collections.repo)).toThrow(/^queries: no usable query in collection 'Fairground demo': \d+ × \d+ useful candidate\(s\), fewer than minUseful = 1000/);
    } finally {
      await s.close();
    }
  });
});
