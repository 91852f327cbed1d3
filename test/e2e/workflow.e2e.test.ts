/**
 * End to end (issue 17 items 2, 4, 7): every step in the UI. On a fresh workspace the Experiments
 * screen offers the bundled demo specs; BM25 retrieval runs from a collection's page, the stored
 * run exports as a TREC file and evaluates on the Results screen against the collection's qrels
 * without any upload (numbers equal the service's); a run whose spec selects no usable query is
 * visible as failed with the reason; Try it streams; Settings copies a diagnostics report.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { evaluateStoredRuns } from '../../src-main/services/evaluation/storedRunEvaluation';
import { launchBrowser, screenshot } from '../support/browser';
import { captureStderr, printedCode } from '../support/folderGesture';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let collectionId: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-flow-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'w', 'e2e.fairground'), logFolder: join(dir, 'logs') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  collectionId = app.services.collections.repo.byName('Fairground demo')!.id;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 }, acceptDownloads: true });
  page.setDefaultTimeout(60_000);
  await page.goto(app.server.launchUrl);
  await page.getByTestId('screen-collections').waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function visit(hash: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
}

describe('every step in the UI', () => {
  it('offers the bundled demo specs on the empty Experiments screen and adds one', async () => {
    await visit('#/experiments');
    const offer = page.getByTestId('demo-specs');
    await offer.waitFor();
    const files = (await offer.getByTestId('demo-spec').evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { file: string } }).dataset.file))).sort();
    expect(files).toEqual(expect.arrayContaining(['fair-rag.json', 'moi.json', 'richrag.json']));
    await offer.locator('[data-testid="demo-spec"][data-file="moi.json"]').getByTestId('demo-spec-add').click();
    await page.getByTestId('experiment-name').waitFor();
    expect(await page.getByTestId('experiment-name').textContent()).toBe('MoI demo');
  });

  it('imports a corpus by path, picked by browsing the allowed folders on the Fairground machine (no upload)', async () => {
    writeFileSync(join(dir, 'w', 'extra.jsonl'), '{"id":"x1","text":"an extra document"}\n{"id":"x2","text":"another one"}\n');
    await visit('#/collections');
    await page.getByTestId('import-open').click();
    await page.getByTestId('import-name').fill('Picked');
    await page.getByTestId('import-kind').selectOption('corpus');
    await page.locator('input[name="mode"][value="path"]').check();
    await page.getByTestId('import-browse').click();
    await page.locator('[data-testid="pb-file"][data-name="extra.jsonl"]').click();
    expect(await page.getByTestId('import-paths').inputValue()).toBe(join(dir, 'w', 'extra.jsonl'));
    await page.getByTestId('import-preview').waitFor();
    await page.getByTestId('import-start').click();
    await page.getByTestId('import-dialog').waitFor({ state: 'hidden' }); // closes when the job succeeds
    expect(app.services.collections.repo.counts(app.services.collections.repo.byName('Picked')!.id).documents).toBe(2);
  });

  it("runs BM25 retrieval from the collection's page and exports the stored run", async () => {
    await visit(`#/collections/${collectionId}/runs`);
    await page.getByTestId('runs-tab').waitFor();
    await page.getByTestId('run-name').fill('bm25 e2e');
    await page.getByTestId('run-start').click();
    const row = page.locator('[data-testid="stored-run"]', { hasText: 'bm25 e2e' });
    await row.waitFor({ timeout: 60_000 });
    const queries = app.services.collections.repo.counts(collectionId).queries;
    expect(await row.locator('td').nth(2).textContent()).toBe(String(queries));
    const download = new Promise<Download>((resolve) => page.once('download', resolve));
    await row.getByTestId('run-export').click();
    const file = readFileSync((await (await download).path())!, 'utf8');
    const lines = file.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.split(/\s+/)).toHaveLength(6);
    await page.getByTestId('notice').waitFor(); // "Exported …" (dismisses itself)
  });

  it("evaluates the stored run on the Results screen against the collection's qrels, without uploads", async () => {
    const run = app.services.retrieval.listRuns(collectionId).find((r) => r.name === 'bm25 e2e')!;
    await visit(`#/results/stored/${collectionId}`);
    await page.getByTestId('eval-stored-run').first().waitFor();
    expect(await page.getByTestId('eval-collection').inputValue()).toBe(String(collectionId));
    await page.getByTestId('eval-measures').fill('nDCG@10 RR');
    await page.getByTestId('eval-go').click();
    const table = page.getByTestId('eval-table');
    await table.waitFor();
    const expected = evaluateStoredRuns(
      { retrieval: app.services.retrieval, collections: app.services.collections.repo },
      { collectionId, runIds: [run.id], judgments: 'relevance', measures: ['nDCG@10', 'RR'], test: 't', correction: 'holm', alpha: 0.05, permutations: 10000, seed: 42 },
    );
    const cells = (await table.locator('tbody tr').first().allInnerTexts())[0]!.replace(/\s+/g, ' ').trim();
    expect(cells).toBe(`bm25 e2e ${expected.systems[0]!.means['nDCG@10']!.toFixed(4)} ${expected.systems[0]!.means.RR!.toFixed(4)}`);
    await screenshot(page, 'results-stored-runs');
  });

  it('a run whose spec selects no usable query is visible as failed, with the reason, in the runs table and the tray badge', async () => {
    const spec = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;
    const created = app.services.experiments.create({ ...spec, name: 'no queries', tasks: ['no-such-task'] });
    await visit(`#/experiments/${created.id}`);
    await page.getByTestId('experiment-run').click();
    const failed = page.locator('[data-testid="run-row"][data-status="failed"]');
    await failed.waitFor({ timeout: 60_000 });
    expect(await failed.textContent()).toContain("tasks[0]: no query of collection 'Fairground demo' has task 'no-such-task'");
    expect(await page.getByTestId('badge-failed').textContent()).toMatch(/^\d+ failed$/);
  });

  it('Try it streams the text and shows time to first token and tokens/s; the card shows the context the engine uses', async () => {
    await visit('#/models');
    const card = page.getByTestId('model-card').first();
    await card.waitFor();
    const model = app.services.models.list()[0]!;
    const trained = model.metadata.contextLength as number;
    const used = Math.min(trained, (model.effectiveSettings as { contextSize: number }).contextSize);
    expect(await card.getByTestId('model-context').textContent()).toMatch(new RegExp(`^${used} tokens used by the engine \\(trained ${trained}`));
    await card.getByTestId('model-try').click();
    await card.getByTestId('try-run').click();
    const stats = card.getByTestId('try-stats');
    await stats.waitFor({ timeout: 120_000 });
    expect(await stats.textContent()).toMatch(/first token after \d+ ms · \d+\.\d tokens\/s/);
    expect((await card.getByTestId('try-output').textContent())!.length).toBeGreaterThan(0);
  }, 180_000);

  it('Settings copies a diagnostics report naming the versions, the workspace and the log', async () => {
    await visit('#/settings');
    await page.getByTestId('copy-diagnostics').click();
    const text = await page.getByTestId('diagnostics-text').inputValue();
    expect(text).toMatch(/^Fairground \d+\.\d+\.\d+ \(browser mode\)/);
    expect(text).toContain(app.services.workspace.path);
    expect(text).toContain("no queries"); // the failed run's job
    expect(await page.getByTestId('log-folder').textContent()).toContain(join(dir, 'logs'));
    // Allowed folders for path fields: add one (with the code the server prints in its terminal,
    // issue 26), see it listed and used by the server.
    const extra = join(dir, 'corpora');
    mkdirSync(extra);
    const cap = captureStderr();
    try {
      await page.getByTestId('allowed-folder-input').fill(extra);
      await page.getByTestId('allowed-folder-add').click();
      await page.getByTestId('folder-code-input').fill(await printedCode(cap.text, realpathSync(extra)));
    } finally {
      cap.stop();
    }
    await page.getByTestId('folder-code-confirm').click();
    await expect.poll(() => page.getByTestId('allowed-folders').textContent()).toContain(extra);
    expect(app.services.paths.allowedFolders().folders).toContain(realpathSync(extra));
    expect(readFileSync(join(dir, 'logs', 'fairground.log'), 'utf8')).toMatch(/ERROR job: no queries: run \d+ failed: tasks\[0\]: no query of collection/);
  });
});
