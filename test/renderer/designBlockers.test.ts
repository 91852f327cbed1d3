/**
 * The wizard's blocking rules (issue 34 item 3), hand-computed cases: a design that cannot run or answer
 * is named with its field and fix — 0 selected queries (the demo's task filter on another collection),
 * Fair RAG without usable utility labels (relevance judgments do not count), k ≥ every usable query's
 * candidates, an unverified server until the user confirms it — and the one status line says so. Fair
 * RAG's rules are its KindUi `blockers` member (fair-rag/blockers.ts, issue 37 item 3), given to the
 * generic designBlockers as `kindBlockers` with the wizard's form; another kind without rules of its own
 * gets only the generic ones.
 */
import { describe, expect, it } from 'vitest';
import { designBlockers, fitSelection, formGenerators, serverVerified, specServers, wizardStatus, type BlockerInput, type BlockerQuery } from '../../src-renderer/src/screens/experiments/designBlockers';
import { fairRagBlockers, usableFairRag } from '../../src-renderer/src/screens/experiments/fair-rag/blockers';

const q = (queryId: string, o: Partial<BlockerQuery> = {}): BlockerQuery => ({ queryId, task: null, candidateCount: null, answers: 1, utilityJudged: 0, utilityUseful: 0, ...o });

/** A collection of one's own: 3 queries without candidate sets, q1 and q2 labelled from a run's top 5. */
const own = [q('q1', { utilityJudged: 5, utilityUseful: 3 }), q('q2', { utilityJudged: 5, utilityUseful: 1 }), q('q3')];

/** A Fair RAG wizard's input: its form's minUseful and k (default 2 and 2) go to its own rules. */
const base = (o: Partial<BlockerInput> & { minUseful?: number; k?: number } = {}): BlockerInput => {
  const { minUseful = 2, k = 2, ...rest } = o;
  return {
    collection: 'mine',
    queries: own,
    queryMode: 'all',
    tasks: [],
    queryIds: [],
    kindBlockers: fairRagBlockers,
    form: { minUseful, k },
    generators: [{ path: 'generator', value: 'model:sim' }],
    servers: [],
    confirmedServers: [],
    ...rest,
  };
};

describe('designBlockers', () => {
  it('a runnable Fair RAG design on utility labels has no blocker', () => {
    expect(designBlockers(base())).toEqual([]);
    // q1 only: 3 useful ≥ 2; q2 has 1, q3 none.
    expect(usableFairRag(own, 2).map((x) => x.queryId)).toEqual(['q1']);
    expect(usableFairRag(own, 1).map((x) => x.queryId)).toEqual(['q1', 'q2']);
  });

  it('the demo’s task filter kept on another collection: unknown task and 0 queries, with the fix', () => {
    const b = designBlockers(base({ kindBlockers: undefined, queryMode: 'tasks', tasks: ['multi-aspect'] }));
    expect(b.map((x) => [x.code, x.path])).toEqual([
      ['unknown-tasks', 'tasks'],
      ['no-queries', 'tasks'],
    ]);
    expect(b[0]!.message).toBe("Collection 'mine' has no query of task 'multi-aspect'.");
    expect(b[0]!.fix).toBe('its queries have no task: select every query');
    expect(b[1]!.message).toBe("0 of the 3 queries of 'mine' are selected.");
    expect(fitSelection({ queryMode: 'tasks', tasks: ['multi-aspect'], queryIds: [] }, own)).toEqual({ queryMode: 'all', tasks: [], queryIds: [] });
    expect(fitSelection({ queryMode: 'ids', tasks: [], queryIds: ['q2', 'x9'] }, own)).toEqual({ queryMode: 'ids', tasks: [], queryIds: ['q2'] });
    expect(fitSelection({ queryMode: 'all', tasks: [], queryIds: [] }, own)).toBeUndefined();
  });

  it('Fair RAG counts utility labels, not relevance judgments: no labelled query blocks', () => {
    const unlabelled = [q('a'), q('b')];
    const b = designBlockers(base({ queries: unlabelled }));
    expect(b).toHaveLength(1);
    expect(b[0]).toMatchObject({ code: 'no-utility-labels', path: 'minUseful' });
    expect(b[0]!.message).toBe('None of the 2 selected queries has utility labels or a candidate set: Fair RAG reads utility labels, not relevance judgments.');
    expect(b[0]!.fix).toMatch(/^label utility on the collection's page/);
    // Labelled, but too few useful for minUseful = 4: the fix is to lower it.
    const few = designBlockers(base({ minUseful: 4 }));
    expect(few.map((x) => x.code)).toEqual(['no-utility-labels']);
    expect(few[0]!.message).toBe('None of the 3 selected queries has ≥ 4 useful candidates by its utility labels (2 labelled); relevance judgments do not count.');
    expect(few[0]!.fix).toBe('lower "Useful documents: at least" below 4, or label more candidates on the collection\'s page');
    // A query without a reference answer is not usable either.
    expect(designBlockers(base({ queries: [q('q1', { utilityJudged: 5, utilityUseful: 3, answers: 0 })] })).map((x) => x.code)).toEqual(['no-utility-labels']);
  });

  it('k at least every usable query’s candidates blocks; below the largest does not', () => {
    const b = designBlockers(base({ k: 5 }));
    expect(b.map((x) => x.code)).toEqual(['k-covers-candidates']);
    expect(b[0]!.message).toBe('k = 5 is at least the number of candidates of every usable query (5): every α arm would show the same documents.');
    expect(b[0]!.fix).toBe('choose k below 5 (k ≤ 4)');
    const mixed = [q('a', { candidateCount: 4, utilityJudged: 4, utilityUseful: 2 }), q('b', { candidateCount: 6, utilityJudged: 6, utilityUseful: 2 })];
    expect(designBlockers(base({ queries: mixed, k: 6 }))[0]!.message).toBe('k = 6 is at least the number of candidates of every usable query (4–6): every α arm would show the same documents.');
    expect(designBlockers(base({ queries: mixed, k: 5 }))).toEqual([]);
  });

  it('an unverified server blocks until confirmed; a verified one does not', () => {
    const servers = [
      { name: 'dead', model: 'm', verified: false, note: 'added without asking the servers' },
      { name: 'live', model: 'm', verified: true },
    ];
    const gens = [
      { path: 'generator', value: 'remote:dead' },
      { path: 'attribution.judge', value: 'remote:dead' },
      { path: 'x', value: 'remote:live' },
    ];
    const b = designBlockers(base({ generators: gens, servers }));
    expect(b).toHaveLength(1);
    expect(b[0]).toMatchObject({ code: 'unverified-server', path: 'generator', server: 'dead' });
    expect(b[0]!.message).toBe("Server 'dead' (m) is unverified: added without asking the servers; a run on a server that is not running fails only after its timeouts.");
    expect(designBlockers(base({ generators: gens, servers, confirmedServers: ['dead'] }))).toEqual([]);
    expect(serverVerified({ capabilities: null, identity: { verified: false, note: 'n' } })).toEqual({ verified: false, note: 'n' });
    expect(serverVerified({ capabilities: { probedAt: 'x' }, identity: { verified: true } })).toEqual({ verified: true });
    expect(serverVerified({ capabilities: { probedAt: 'x' }, identity: { verified: false } })).toEqual({ verified: false });
  });

  it('nothing is judged while the collection’s queries are loading', () => {
    expect(designBlockers(base({ queries: undefined }))).toEqual([]);
  });

  it('a kind without rules of its own gets only the generic blockers: unlabelled queries and k = 5 do not block it', () => {
    expect(designBlockers(base({ kindBlockers: undefined, queries: [q('a'), q('b')], k: 5 }))).toEqual([]);
    // The kind's rules see only the selected queries and the form.
    const seen: unknown[] = [];
    designBlockers(base({ queryMode: 'ids', queryIds: ['q2'], kindBlockers: (selected, form) => (seen.push(selected.map((x) => x.queryId), form), []) }));
    expect(seen).toEqual([['q2'], { minUseful: 2, k: 2 }]);
  });
});

describe('wizardStatus', () => {
  it('one line that reflects the blocking problems', () => {
    const blockers = designBlockers(base({ k: 5 }));
    expect(wizardStatus({ checking: false, shown: 0, hidden: 0, blockers: [] })).toBe('Valid');
    expect(wizardStatus({ checking: false, shown: 0, hidden: 2, blockers: [] })).toBe('Not complete yet');
    expect(wizardStatus({ checking: true, shown: 0, hidden: 0, blockers })).toBe('Checking…');
    expect(wizardStatus({ checking: false, shown: 0, hidden: 0, blockers })).toBe(
      'cannot run: k = 5 is at least the number of candidates of every usable query (5): every α arm would show the same documents',
    );
    expect(wizardStatus({ checking: false, shown: 2, hidden: 0, blockers: [...blockers, ...blockers] })).toBe('2 problems; cannot run: 2 blocking problems');
  });
});

describe('specServers', () => {
  it('finds every server a stored spec names', () => {
    expect(specServers({ generator: { remote: 'a' }, attribution: { generator: { remote: 'b' } }, agent: { model: 'm' }, x: [{ remote: 'a' }] })).toEqual(['a', 'b']);
    expect(specServers({ generator: { model: 'sim' } })).toEqual([]);
  });
});

describe('formGenerators', () => {
  it('lists the model and server choices of a wizard form with their spec fields', () => {
    expect(formGenerators({ name: 'x', generator: 'remote:dead', agent: 'model:tiny', judgeGenerator: 'remote:j', collection: 'model: not one' })).toEqual([
      { path: 'generator', value: 'remote:dead' },
      { path: 'agent', value: 'model:tiny' },
      { path: 'attribution', value: 'remote:j' },
    ]);
  });
});
