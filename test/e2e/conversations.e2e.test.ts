/**
 * End to end: import conversations in the Conversations screen, mark a nugget by selecting words
 * with the mouse (level with a number key, group from the dropdown), see GFRC2 and the cluster plot
 * update, have an overlapping nugget refused, mark another with the keyboard only, and export the
 * runs × topics table as CSV with its manifest.
 *
 * Hand-computed (L = 20, SIDE = {left, right}, uniform target): the system turn of A/t1 reads
 * "S:Try(4) the noodle(6) bar(7) near the station or the taco(13) stand(14) by the river."
 * - noodle bar, L2, left: wc = 7, GWCrel = 4, WCnonrel = 5, GNP = 4/9; D = (1, 0), DistrSim =
 *   1 − JSD = 0.688722; Experience = 0.566583; GFRC2 = 0.566583/20 = 0.028329.
 * - taco stand, L1, right: wc = 14, GWCrel = 6, WCnonrel = 10, GNP = 0.375; D = (½, ½), DistrSim = 1;
 *   Experience = 0.6875; GFRC2 = (0.566583 + 0.6875)/20 = 0.062704.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generationKey, queryKey, sampleKey } from '../../src-main/experiments/fair-rag/items';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ExperimentsRepo } from '../../src-main/store/experimentsRepo';
import { downloadFiles, launchBrowser, screenshot } from '../support/browser';

const FIXTURE = join(process.cwd(), 'test', 'fixtures', 'conversations', 'e2e.jsonl');
const SIM = 1 - 0.5 * (Math.log2(4 / 3) + 0.5 * Math.log2(2 / 3) + 0.5);

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-conv-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'c.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 950 }, acceptDownloads: true });
  await page.goto(app.server.launchUrl);
  await page.locator('nav a[data-screen="conversations"]').click();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const download = (testId: string) => downloadFiles(page, testId);

const metric = (key: string) => page.getByTestId(`metric-${key}`);
const word = (wc: number) => page.locator(`[data-testid="transcript"] [data-wc="${wc}"]`);
const plotPoints = () => page.locator('[data-testid="cluster-plot"] .scatterlayer path.point').count();

/** Press the mouse at the left edge of word `from` and release it at the right edge of word `to`. */
async function dragOver(from: number, to: number) {
  const a = (await word(from).boundingBox())!;
  const b = (await word(to).boundingBox())!;
  await page.mouse.move(a.x + 1, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 4 });
  await page.mouse.move(b.x + b.width - 1, b.y + b.height / 2);
  await page.mouse.up();
}

describe('Conversations → nugget annotation', () => {
  it('imports a JSONL file into a new set', async () => {
    await expect.poll(() => page.getByText('No conversations yet').count()).toBe(1);
    await page.getByTestId('conversations-import-open').click();
    await page.getByTestId('conversations-file').setInputFiles(FIXTURE);
    await page.getByTestId('conversations-set-name').fill('lunch');
    await page.getByTestId('conversations-import-go').click();
    await page.getByTestId('set-name').filter({ hasText: 'lunch' }).waitFor();
    expect(await page.getByTestId('conversation-row').count()).toBe(4);
    await page.getByTestId('means-table').waitFor();
  });

  it('marks a nugget by selecting words with the mouse; GFRC2 and the cluster plot update', async () => {
    await page.locator('[data-testid="conversation-row"][data-conv="A/t1"] a').click();
    await page.getByTestId('annotator').waitFor();
    await expect.poll(() => metric('GFRC2').textContent()).toBe('0.000000');
    await expect.poll(() => page.getByTestId('shortcuts').textContent()).toContain('mark the nugget / save changes');

    await dragOver(6, 7);
    await expect.poll(() => page.getByTestId('nugget-form').locator('h3').textContent()).toBe('New nugget: words 6–7 “noodle bar”');
    await page.keyboard.press('2');
    await expect.poll(() => page.getByTestId('level-2').getAttribute('aria-checked')).toBe('true');
    await page.getByTestId('group-SIDE').selectOption('left');
    await page.getByTestId('nugget-save').click();

    const gnp1 = 4 / 9;
    await expect.poll(() => metric('GFRC2').textContent()).toBe((((gnp1 + SIM) / 2) / 20).toFixed(6));
    expect(await metric('GFRC2').textContent()).toBe('0.028329');
    expect(await metric('EGNP').textContent()).toBe((gnp1 / 20).toFixed(6));
    expect(await page.getByTestId('nugget-row').count()).toBe(1);
    await page.locator('[data-testid="cluster-plot"][data-ready="true"]').waitFor();
    await expect.poll(plotPoints).toBe(2); // one cluster: GNP and DistrSim SIDE
    const step = await page.getByTestId('step-table').locator('tbody tr').first().innerText();
    expect(step.split(/\s+/)).toEqual(['7', '4', '5', '0.444444', '(1,0)', SIM.toFixed(6), ((gnp1 + SIM) / 2).toFixed(6)]);
    await screenshot(page, 'conversations-annotate');
  });

  it('refuses an overlapping nugget with a clear message', async () => {
    await dragOver(7, 8);
    await page.getByTestId('nugget-save').click();
    await expect.poll(() => page.getByTestId('nugget-message').textContent()).toBe("overlaps the nugget 'noodle bar' (words 6-7); nuggets must not overlap — delete or shrink that one first");
    await page.keyboard.press('Escape');
    expect(await page.getByTestId('nugget-row').count()).toBe(1);
  });

  it('marks a nugget with the keyboard only: cursor, Shift+→, level key, group key, Enter', async () => {
    await word(13).click();
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(() => page.getByTestId('nugget-form').locator('h3').textContent()).toBe('New nugget: words 13–14 “taco stand”');
    await page.keyboard.press('1');
    await page.keyboard.press('Shift+Digit2'); // group 2 of SIDE: right
    await expect.poll(() => page.getByTestId('group-SIDE').inputValue()).toBe('right');
    await page.keyboard.press('Enter');
    const experience = ((4 / 9 + SIM) / 2 + (0.375 + 1) / 2) / 20;
    await expect.poll(() => metric('GFRC2').textContent()).toBe(experience.toFixed(6));
    expect(await metric('GFRC2').textContent()).toBe('0.062704');
    await expect.poll(plotPoints).toBe(4);
    expect(await page.getByTestId('nugget-row').count()).toBe(2);
  });

  it('exports the runs × topics table as CSV with its manifest', async () => {
    await page.locator('.crumbs a').first().click();
    await page.getByTestId('means-table').waitFor();
    await expect.poll(() => page.getByTestId('pivot-table').locator('tbody tr').first().innerText()).toContain('0.062704');
    const files = await download('export-conv-csv');
    expect(files.map((f) => f.name).sort()).toEqual(['gfrc-lunch.csv', 'gfrc-lunch.csv.manifest.json']);
    const rows = files.find((f) => f.name.endsWith('.csv'))!.body.toString().trim().split('\n');
    expect(rows[0]).toBe('run,topic,conversations,GFRC2,EGNP,EGF(SIDE),GFRC,R,GF(SIDE)');
    const a1 = rows.find((r) => r.startsWith('A,t1,'))!.split(',');
    expect(Number(a1[3])).toBeCloseTo(((4 / 9 + SIM) / 2 + 0.6875) / 20, 10);
    expect(rows.filter((r) => r.includes(',all,'))).toHaveLength(2);
    const manifest = JSON.parse(files.find((f) => f.name.endsWith('.json'))!.body.toString());
    expect(manifest.parameters).toMatchObject({ L: 20, l_max: 2 });
    expect(manifest.data.collection.sha256).toMatch(/^[0-9a-f]{64}$/);
    await page.getByTestId('overlay-plot').and(page.locator('[data-ready="true"]')).waitFor();
    await screenshot(page, 'conversations-set');
  });

  it('creates conversations from a Fair RAG run, ready for annotation', async () => {
    const repo = new ExperimentsRepo(app.services.workspace.db);
    const exp = repo.createExperiment({ kind: 'fair-rag', name: 'tiny-rag', spec: {} });
    const run = repo.createRun({ experimentId: exp.id, spec: {}, specVersion: 1 });
    const candidates = [
      { docId: 'd1', useful: true, provider: 'desk' },
      { docId: 'd2', useful: false, provider: 'wire' },
    ];
    repo.upsertItems(run.id, [
      { key: queryKey('q1'), queryId: 'q1', condition: '', sample: null, payload: { type: 'query', text: 'Rain in Lyon?', retrievalText: 'rain lyon', answers: [], task: null, metric: 'rougeL', lowerIsBetter: false, worst: null, candidates, scores: {} } },
      { key: sampleKey('q1', 'oracle', 0), queryId: 'q1', condition: 'oracle', sample: 0, payload: { type: 'sample', retriever: null, alpha: null, policy: 'oracle', ranking: ['d1', 'd2'], promptHash: 'p1' } },
      { key: generationKey('q1', 'p1'), queryId: 'q1', condition: '', sample: null, payload: { type: 'generation', promptHash: 'p1', prompt: 'x', output: 'Expect showers in Lyon after noon.', outputHash: 'o1', fromCache: false } },
      // A second arm: one click makes conversations of both (issue 34 item 8g).
      { key: sampleKey('q1', 'bm25/alpha=2', 0), queryId: 'q1', condition: 'bm25/alpha=2', sample: 0, payload: { type: 'sample', retriever: 'bm25', alpha: 2, policy: 'pl', ranking: ['d2', 'd1'], promptHash: 'p2' } },
      { key: generationKey('q1', 'p2'), queryId: 'q1', condition: '', sample: null, payload: { type: 'generation', promptHash: 'p2', prompt: 'y', output: 'Perhaps some rain.', outputHash: 'o2', fromCache: false } },
    ]);
    await page.locator('nav a[data-screen="conversations"]').click();
    await page.getByTestId('conversations-from-run-open').click();
    const form = page.getByTestId('conversations-from-run');
    await expect.poll(() => form.locator('select').first().inputValue()).toBe(String(run.id));
    expect(await form.getByTestId('conversations-from-run-condition').inputValue()).not.toBe('oracle'); // all conditions by default
    await form.locator('button[type="submit"]').click();
    await page.getByTestId('set-name').filter({ hasText: 'tiny-rag answers' }).waitFor();
    expect(await page.getByTestId('attribute-sets').locator('tbody tr').first().innerText()).toContain('desk, wire');
    await expect.poll(() => page.getByTestId('conversation-row').count()).toBe(2);
    await page.getByTestId('conversation-row').filter({ hasText: 'oracle' }).locator('a').click();
    await expect.poll(() => page.getByTestId('turn-1').innerText()).toContain('Expect showers in Lyon after noon.');
  });
});
