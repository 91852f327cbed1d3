/** `fairground label utility` and `fairground label export` in-process, on a generated tiny model. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import { createAppServices } from '../../../src-main/services/appServices';
import { runCliCaptured } from '../../support/cli';
import { addLabelCollection } from '../../services/labeling/fixture';

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-label-cli-'));
  await writeTinyGguf(join(dir, 'tiny.gguf'), { preset: 'tiny', seed: 5 });
  const s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  s.settings.update({ threads: 1 });
  await s.models.addHashed(join(dir, 'tiny.gguf'), 'tiny');
  addLabelCollection(s, 'tiny-lab', {}, 2, 2);
  await s.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const label = (argv: string[]) => runCliCaptured(['label', ...argv, '--workspace', 'w.fairground'], { cwd: dir });

describe('fairground label', () => {
  it('labels with a library model, progress on stderr; a second run is served by the cache', async () => {
    const args = ['utility', '--collection', 'tiny-lab', '--model', 'tiny', '--queries', 'q1,q2', '--max-tokens', '8', '--min-useful', '1'];
    const first = await label(args);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^labelled 2 queries\nLLM calls: 6 \(0 from the cache, 6 generated\)\njudgments: 4 written, 0 unchanged, 0 manual kept, 0 imported replaced\nkept \d queries? with at least 1 useful documents, dropped \d\nprompt budget: [^\n]+\ncontent hash [0-9a-f]{64}\n$/);
    expect(first.stderr).toContain('6/6 LLM calls (100%');
    const again = await label([...args, '--json']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ queries: 2, calls: { total: 6, cached: 6, generated: 0 }, judgments: { written: 0, unchanged: 4 } });
  });

  it('exports the labels as Fair-RAG TSV to a file and as qrels to stdout', async () => {
    const tsv = await label(['export', '--collection', 'tiny-lab', '--format', 'fairrag-mapping', '--min-useful', '0', '-o', 'mapping.tsv']);
    expect(tsv).toMatchObject({ code: 0, stdout: '', stderr: 'wrote 4 labels of 2 queries to mapping.tsv\n' });
    expect(readFileSync(join(dir, 'mapping.tsv'), 'utf8')).toMatch(/^qid\tpid\trelevance_label\nq1\td1\t[01]\nq1\td2\t[01]\nq2\td3\t[01]\nq2\td4\t[01]\n$/);
    const qrels = await label(['export', '--collection', 'tiny-lab', '--format', 'qrels', '--min-useful', '0']);
    expect(qrels.stdout).toMatch(/^q1 0 d1 [01]\nq1 0 d2 [01]\nq2 0 d3 [01]\nq2 0 d4 [01]\n$/);
    const delta = await label(['export', '--collection', 'tiny-lab', '--format', 'fairrag-delta', '--min-useful', '0']);
    expect(delta.stdout.split('\n')[0]).toBe('qid\tpid\taugment_score\tbaseline_score\tdelta');
  });

  it('checks its options and names what is wrong', async () => {
    expect((await label(['utility', '--collection', 'tiny-lab'])).stderr).toBe('fairground label utility: give one generator: --model NAME or --remote NAME\n');
    expect((await label(['utility', '--collection', 'tiny-lab', '--model', 'nope'])).stderr).toContain("--model: no model named 'nope' in the library");
    expect((await label(['utility', '--collection', 'nope', '--model', 'tiny'])).stderr).toContain("no collection named 'nope'");
    expect((await label(['utility', '--collection', 'tiny-lab', '--model', 'tiny', '--metric', 'bleu'])).stderr).toContain('--metric: Invalid option');
    expect((await label(['utility', '--collection', 'tiny-lab', '--model', 'tiny', '--queries', 'zz'])).stderr).toContain("no query 'zz' in this collection");
    expect((await label(['export', '--collection', 'tiny-lab', '--format', 'csv'])).stderr).toContain("--format: expected qrels, fairrag-mapping, fairrag-delta, got 'csv'");
    const r = await runCliCaptured(['label', 'utility', '--collection', 'x', '--model', 'tiny', '--workspace', 'missing.fairground'], { cwd: dir });
    expect(r).toMatchObject({ code: 2 });
    expect(r.stderr).toContain('no workspace at');
  });
});
