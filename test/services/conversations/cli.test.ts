/** `fairground conversation import|evaluate|export|from-run` in-process (src-main/cli/commands/conversation.ts). */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conversationEvaluate, conversationExport, conversationFromRun, conversationImport } from '../../../src-main/cli/commands/conversation';
import { generationKey, queryKey, sampleKey } from '../../../src-main/experiments/fair-rag/items';
import { ExperimentsRepo } from '../../../src-main/store/experimentsRepo';
import { openWorkspace } from '../../../src-main/store/workspace';
import { evalGfrc2Command } from '../../../src-main/cli/commands/evalGfrc2';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-conv-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DEMO = path.join(process.cwd(), 'resources', 'demo', 'conversations', 'demo.jsonl');

const cli = (argv: string[]) =>
  runCliCaptured(['conversation', ...argv, '--workspace', 'w.fairground'], { cwd: dir, commands: [conversationImport, conversationEvaluate, conversationExport] });

describe('fairground conversation', () => {
  it('imports, evaluates (table and CSV) and exports a set', async () => {
    const imp = await cli(['import', DEMO, '--set', 'demo']);
    expect(imp).toEqual({ code: 0, stdout: "created 'demo' (id 1): 6 conversations, 14 turns, 21 nuggets\n", stderr: '' });

    const table = await cli(['evaluate', '--set', 'demo']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^run\s+topic\s+conversation\s+GFRC2\s+EGNP\s+EGF\(REGION\)\s+EGF\(AGE\)\s+GFRC\s+R\s+GF\(REGION\)\s+GF\(AGE\)$/);
    expect(lines).toHaveLength(1 + 8 + 1);
    expect(lines[4]).toMatch(/^balanced\s+all\s+3 topics\s+0\.00/);

    const csv = await cli(['evaluate', '--set', 'demo', '--csv', '--r-variant', 'eq7']);
    const rows = csv.stdout.trim().split('\n');
    expect(rows[0]).toBe('run,topic,conversation,GFRC2,EGNP,EGF(REGION),EGF(AGE),GFRC,R,GF(REGION),GF(AGE)');
    expect(rows[1]).toMatch(/^balanced,D1,balanced\/D1,0\.00\d+,/);

    expect((await cli(['export', '--set', 'demo', '--out', 'demo-out.jsonl'])).code).toBe(0);
    expect(readFileSync(path.join(dir, 'demo-out.jsonl'), 'utf8').split('\n')).toHaveLength(8);
    const out = await cli(['export', '--set', 'demo', '--format', 'gfrc2', '--out', 'inputs']);
    expect(out.stdout).toMatch(/^wrote 6 file\(s\) to .*inputs\n$/);
    expect(readdirSync(path.join(dir, 'inputs')).sort()[0]).toBe('balanced-D1.gfrc2.json');
    // each export is an `eval gfrc2` input whose GFRC2 is the table's
    const scored = await runCliCaptured(['eval', 'gfrc2', '--input', 'inputs/balanced-D1.gfrc2.json'], { cwd: dir, commands: [evalGfrc2Command] });
    expect(Number(rows[1]!.split(',')[3])).toBeCloseTo((JSON.parse(scored.stdout) as { GFRC2: number }).GFRC2, 12);
  });

  it('reports file, line and field, and checks its options', async () => {
    writeFileSync(path.join(dir, 'bad.jsonl'), '{"id": "a", "turns": [{"role": "system", "text": "a b"}]}\n{"id": "b", "turns": [{"role": "system", "text": "a b", "nuggets": [{"text": "b", "level": -1}]}]}\n');
    const bad = await cli(['import', 'bad.jsonl', '--set', 'broken']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad\.jsonl:2: turns\[0\]\.nuggets\[0\]\.level: /);
    expect((await cli(['evaluate', '--set', 'broken'])).stderr).toContain("no conversation set named 'broken'");
    expect((await cli(['import', 'bad.jsonl'])).stderr).toContain('missing required option --set');
    expect((await cli(['evaluate', '--set', 'demo', '--r-variant', 'eq8'])).stderr).toContain("--r-variant: expected one of eq6, eq7, eq9, got 'eq8'");
    writeFileSync(path.join(dir, 'attrs.json'), JSON.stringify([{ name: 'G', kind: 'nominal' }]));
    expect((await cli(['import', 'bad.jsonl', '--set', 'x', '--attributes', 'attrs.json'])).stderr).toContain('--attributes: attrs.json: [0].groups: ');
  });

  it('creates a set with the given L, l_max and attribute sets', async () => {
    writeFileSync(path.join(dir, 'attrs2.json'), JSON.stringify([{ name: 'G', kind: 'ordinal', groups: ['lo', 'hi'] }]));
    writeFileSync(path.join(dir, 'one.jsonl'), JSON.stringify({ id: 'c', run: 'r', topic: 't', turns: [{ role: 'user', text: 'q' }, { role: 'system', text: 'a b c', nuggets: [{ text: 'c', level: 3, groups: { G: 'hi' } }] }] }));
    const r = await cli(['import', 'one.jsonl', '--set', 'custom', '--L', '10', '--l-max', '3', '--attributes', 'attrs2.json', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ setName: 'custom', createdSet: true, nuggets: 1, attributeSetsFrom: 'request' });
    const csv = await cli(['evaluate', '--set', 'custom', '--csv']);
    // one L3 nugget ending at word 4: GNP = 3/(3 + 3) = 0.5, EGNP = 0.05
    expect(csv.stdout.split('\n')[1]).toMatch(/^r,t,c,[\d.]+,0\.05,/);
  });
});

describe('fairground conversation from-run (issue 34 item 8g)', () => {
  it("turns every condition of a Fair RAG run into conversations in one command, or the listed ones", async () => {
    // A hand-built run in a workspace file: q1 answered in two arms, q2 only in the deterministic one.
    const ws = openWorkspace(path.join(dir, 'rag.fairground'));
    let runId: number;
    try {
      const repo = new ExperimentsRepo(ws.db);
      const exp = repo.createExperiment({ kind: 'fair-rag', name: 'rag', spec: {} });
      runId = repo.createRun({ experimentId: exp.id, spec: {}, specVersion: 1 }).id;
      const candidates = [
        { docId: 'd1', useful: true, provider: 'desk' },
        { docId: 'd2', useful: false, provider: 'wire' },
      ];
      const query = (qid: string) => ({ key: queryKey(qid), queryId: qid, condition: '', sample: null, payload: { type: 'query', text: `query ${qid}`, retrievalText: qid, answers: [], task: null, metric: 'rougeL', lowerIsBetter: false, worst: null, candidates, scores: {} } });
      const sample = (qid: string, cond: string, hash: string) => ({ key: sampleKey(qid, cond, 0), queryId: qid, condition: cond, sample: 0, payload: { type: 'sample', retriever: 'bm25', alpha: null, policy: 'pl', ranking: ['d1', 'd2'], promptHash: hash } });
      const generation = (qid: string, hash: string) => ({ key: generationKey(qid, hash), queryId: qid, condition: '', sample: null, payload: { type: 'generation', promptHash: hash, prompt: '…', output: `answer ${hash}`, outputHash: `o${hash}`, fromCache: false } });
      repo.upsertItems(runId, [query('q1'), query('q2'), sample('q1', 'bm25/alpha=2', 'a'), sample('q1', 'bm25/deterministic', 'b'), sample('q2', 'bm25/deterministic', 'c'), generation('q1', 'a'), generation('q1', 'b'), generation('q2', 'c')]);
    } finally {
      ws.close();
    }
    const run = (argv: string[]) => runCliCaptured(['conversation', 'from-run', ...argv, '--workspace', 'rag.fairground'], { cwd: dir, commands: [conversationFromRun] });
    const all = await run([String(runId), '--set', 'answers']);
    expect(all).toEqual({
      code: 0,
      stdout: "created 'answers' (id 1): 3 conversations from 2 condition(s): bm25/alpha=2, bm25/deterministic\nattribute set PROVIDER: desk, wire\nnote: 1 (condition, query) pair(s) have no answer for this sample and were left out: bm25/alpha=2/q2\n",
      stderr: '',
    });
    const listed = await run([String(runId), '--set', 'det', '--conditions', 'bm25/deterministic', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject({ conversations: 2, conditions: ['bm25/deterministic'] });
    const twice = await run([String(runId), '--set', 'answers', '--conditions', 'all']);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(`conversation 'rag#${runId}/bm25/alpha=2/q1' is already in the set`);
    expect((await run([String(runId), '--set', 'x', '--conditions', 'oracle'])).stderr).toContain(`run ${runId} has no condition 'oracle' (it has 'bm25/alpha=2', 'bm25/deterministic')`);
    expect((await run(['0', '--set', 'x'])).stderr).toContain("expected a run id (a positive integer), got '0'");
    expect((await run([String(runId), '--set', 'x', '--condition', 'a', '--conditions', 'all'])).stderr).toContain('give --condition or --conditions, not both');
  });
});
