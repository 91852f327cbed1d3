/**
 * Issue 16 item 8 through a whole Fair RAG run: a prompt budget in the generator's own tokens (the
 * local model's tokenizer, as the papers truncated) — every stored prompt fits the budget when the
 * model itself counts it, while the same budget in words lets the prompts run longer.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices } from '../../src-main/services/appServices';
import { DEMO_MODEL_NAME } from '../../src-main/services/demoSetup';
import { runCliCaptured } from '../support/cli';
import { makeDemoWorkspace, tinySpec } from './fixture';

let dir: string;
let ws: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-token-budget-'));
  ws = await makeDemoWorkspace(dir);
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('prompt budget in the generator tokens', () => {
  it('renders every prompt within the budget as the model counts it', async () => {
    const total = 40;
    const run = async (unit: string, name: string) => {
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(tinySpec({ name, alphas: [0], samples: 3, promptBudget: { unit, total } })));
      const r = await runCliCaptured(['run', file, '--workspace', ws], { cwd: dir });
      expect(r.code, r.stderr).toBe(0);
    };
    await run('tokens', 'by-tokens');
    await run('words', 'by-words');
    const s = createAppServices(ws, { transport: 'http' });
    try {
      const engine = s.models.engineFor({ kind: 'local', modelId: s.models.models.getByName(DEMO_MODEL_NAME)!.id });
      const prompts = (name: string) =>
        (s.workspace.db.prepare(`SELECT json_extract(i.payload, '$.prompt') AS p FROM run_items i JOIN runs r ON r.id = i.run_id JOIN experiments e ON e.id = r.experiment_id WHERE e.name = ? AND i.key LIKE '["g",%'`).all(name) as { p: string }[]).map((r) => r.p);
      const byTokens = prompts('by-tokens');
      const byWords = prompts('by-words');
      expect(byTokens.length).toBeGreaterThan(0);
      const countsT = (await engine.tokenize({ texts: byTokens })).counts;
      const countsW = (await engine.tokenize({ texts: byWords })).counts;
      for (const n of countsT) expect(n).toBeLessThanOrEqual(total);
      // 40 words are more than 40 of the tiny model's tokens: the word budget overshoots.
      expect(Math.max(...countsW)).toBeGreaterThan(total);
    } finally {
      await s.close();
    }
  }, 300_000);
});
