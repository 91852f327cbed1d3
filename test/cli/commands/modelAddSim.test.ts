/**
 * `fairground model add-sim`: a simulated reader added from the CLI is listed, named in a spec and
 * run by `fairground run`; its fitted MoI bias is the one given on the command line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices } from '../../../src-main/services/appServices';
import { runCliCaptured } from '../../support/cli';
import { addCollection } from '../../planted/support';

let dir: string;
const ws = 'w.fairground';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-addsim-cli-'));
  const s = createAppServices(join(dir, ws), { transport: 'http' });
  const words = ['amber', 'basalt', 'cedar', 'delta'];
  addCollection(
    s,
    'planted',
    words.map((w, i) => ({ docId: `d${i + 1}`, text: `Passage ${i + 1} is about the ${w} only.` })),
    [{ queryId: 'q', text: 'Which word does the planted question want?', answers: ['amber'], task: 't', metric: 'accuracy', candidates: ['d1', 'd2', 'd3', 'd4'], attrs: { labels: ['amber', 'cedar'] } }],
  );
  await s.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (argv: string[]) => runCliCaptured([...argv, '--workspace', ws], { cwd: dir });

describe('fairground model add-sim', () => {
  it('adds a reader from options and a profile file; a spec names it and `run` fits its planted bias', async () => {
    writeFileSync(join(dir, 'profile.json'), JSON.stringify({ utilities: { q: { d1: 0.1, d2: 0.9, d3: 0.4, d4: 0.6 } }, closedBookAccuracy: 0.5 }));
    const added = await cli(['model', 'add-sim', '--collection', 'planted', '--bias', '4,3,2,1', '--closed-book', '0', '--profile', 'profile.json', '--name', 'Simulated reader (cli)']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    // --closed-book given beside the file wins over the file's 0.5.
    expect(added.stdout).toBe("Added 'Simulated reader (cli)': simulated reader of 'planted': bias [4, 3, 2, 1], utility from labels, closed-book 0, noise 0, seed 0\n");
    const listed = JSON.parse((await cli(['model', 'list', '--json'])).stdout) as { name: string; metadata: Record<string, unknown> }[];
    expect(listed.find((m) => m.name === 'Simulated reader (cli)')?.metadata).toMatchObject({ kind: 'sim', simulatedReader: true });

    const spec = {
      kind: 'moi',
      name: 'cli sim',
      collection: 'planted',
      retriever: { method: 'candidate-order' },
      n: 4,
      permutations: { set: 'all' },
      solver: { ridge: 0 },
      generator: { model: 'Simulated reader (cli)' },
      decoding: { maxTokens: 4 },
      baselines: [],
    };
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
    const run = await cli(['run', 'spec.json']);
    expect(run.code, run.stderr).toBe(0);
    const s = createAppServices(join(dir, ws), { transport: 'http' });
    try {
      const runs = s.experiments.repo.runs();
      expect(runs).toHaveLength(1);
      const runId = runs[0]!.id;
      const [fit] = s.experiments.repo.items(runId, { keyPrefix: '["fit",' }).map((it) => it.payload as unknown as { a: number[]; ranking: number[] });
      // Planted a = [4, 3, 2, 1] / 10, in MoI's gauge a' = λa + (1 − λ)/4; u ranks d2 > d4 > d3 > d1.
      const planted = [0.4, 0.3, 0.2, 0.1];
      const x = planted.map((v) => v - 0.25);
      const y = fit!.a.map((v) => v - 0.25);
      const lambda = x.reduce((acc, v, i) => acc + v * y[i]!, 0) / x.reduce((acc, v) => acc + v * v, 0);
      expect(lambda).toBeGreaterThan(0);
      fit!.a.forEach((v, j) => expect(Math.abs((v - (1 - lambda) / 4) / lambda - planted[j]!)).toBeLessThan(1e-9));
      expect(fit!.ranking).toEqual([1, 3, 2, 0]);
    } finally {
      await s.close();
    }
  });

  it('names the problem: no collection, an unknown collection, a bad bias, a taken name', async () => {
    expect(await cli(['model', 'add-sim'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--collection is required') });
    expect(await cli(['model', 'add-sim', '--collection', 'nope'])).toMatchObject({ code: 2, stderr: expect.stringContaining("profile.collection: no collection named 'nope'") });
    expect(await cli(['model', 'add-sim', '--collection', 'planted', '--bias', 'middle'])).toMatchObject({ code: 2, stderr: expect.stringContaining("--bias: expected one of uniform, primacy, recency, u-shaped or non-negative weights") });
    expect(await cli(['model', 'add-sim', '--collection', 'planted', '--noise', '2'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--noise') });
    expect(await cli(['model', 'add-sim', '--collection', 'planted', '--name', 'Simulated reader (cli)'])).toMatchObject({ code: 2, stderr: expect.stringContaining('already in the library') });
  });
});
