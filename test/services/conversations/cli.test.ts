/** `fairground conversation import|evaluate|export` in-process (src-main/cli/commands/conversation.ts). */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conversationEvaluate, conversationExport, conversationImport } from '../../../src-main/cli/commands/conversation';
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
