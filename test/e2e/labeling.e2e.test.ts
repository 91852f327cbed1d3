/**
 * End to end in Chromium (browser mode): open the demo collection, launch utility labeling of the
 * movie-tag queries with the generated tiny model from the dialog (template preview on a real
 * query, Fair-RAG's LaMP-2 prompt), watch the job succeed in the tray, and see the LLM labels with
 * their deltas on a query page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { DEMO_COLLECTION_NAME } from '../../src-main/services/collectionsDemo';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { launchBrowser, openJobTray, screenshot } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let collectionId: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-labels-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'lab', 'e2e.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  collectionId = app.services.collections.byName(DEMO_COLLECTION_NAME)!.id;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(app.server.launchUrl);
  await page.getByTestId('screen-collections').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('utility labeling in Chromium (browser mode)', () => {
  it('previews the prompts on a real query and starts the labeling job from the dialog', async () => {
    await page.goto(new URL(`/#/collections/${collectionId}`, app.server.url).href);
    await page.getByTestId('collection-name').waitFor();
    await page.getByTestId('label-utility-open').click();
    const dialog = page.getByTestId('label-utility-dialog');
    await dialog.waitFor();
    expect(await page.getByTestId('label-generator').locator('option:checked').textContent()).toBe('fairground-tiny');
    await page.getByTestId('label-scope').selectOption('task');
    await page.getByTestId('label-task').selectOption('movie-tag');
    await page.getByTestId('label-max-tokens').fill('8');
    // 4 movie-tag queries × (1 baseline + 5 candidates); the prompt is Fair-RAG's LaMP-2 AIP.
    await page.getByTestId('label-plan').filter({ hasText: '4 queries · 24 LLM calls' }).waitFor();
    expect(await page.getByTestId('label-plan').textContent()).toContain('fair-rag/LaMP-2 · accuracy');
    expect(await page.getByTestId('label-augmented-prompt').textContent()).toMatch(/^the tag for the movie: A wedding caterer accidentally serves the cake to the wrong party, twice\. is comedy\. Which tag does this movie relate to/);
    expect(await page.getByTestId('label-baseline-prompt').textContent()).toMatch(/^Which tag does this movie relate to among the following tags\?/);

    // A template typo is reported in the dialog, naming the placeholder, and blocks the start.
    await dialog.locator('summary').click();
    await page.getByTestId('label-template').fill('{{query}} {{docs}}');
    await page.getByTestId('label-preview-error').waitFor();
    expect(await page.getByTestId('label-preview-error').textContent()).toContain('unknown placeholder {{docs}}');
    expect(await page.getByTestId('label-start').isDisabled()).toBe(true);
    await page.getByTestId('label-template').fill('');
    await page.getByTestId('label-plan').waitFor();
    // The labels there are now (the demo's imported ones), with an export of the kept queries.
    const current = page.getByTestId('label-summary');
    await current.waitFor();
    expect(await current.textContent()).toMatch(/Labelled now: 8 of 12 queries, \d+ of 36 documents useful;\s+\d+ queries kept \(≥ 2 useful\)/);
    const [download] = await Promise.all([page.waitForEvent('download'), current.getByRole('button', { name: 'relevance mapping' }).click()]);
    expect(download.suggestedFilename()).toBe('Fairground_demo_relevance_mapping.tsv');
    await screenshot(page, 'labeling-dialog');

    await page.getByTestId('label-start').click();
    await openJobTray(page); // the tray starts collapsed (issue 17 item 1)
    const done = page.getByTestId('job-tray').locator('[data-testid="job"][data-status="succeeded"]', { hasText: 'Utility labels' });
    await done.waitFor({ timeout: 45_000 });
    expect(await done.textContent()).toContain('labelled 4 queries (24 calls generated, 0 cached)');
  });

  it('shows the LLM labels with their deltas on the query page', async () => {
    await page.goto(new URL(`/#/collections/${collectionId}/queries/tag-u1`, app.server.url).href);
    await page.getByTestId('query-text').waitFor();
    expect(await page.getByTestId('label-kind').inputValue()).toBe('utility');
    const rows = page.getByTestId('candidate-row');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(5);
    const repo = app.services.collections.repo;
    for (const j of repo.judgmentsOf(collectionId, 'tag-u1')) {
      expect(j.source).toBe('llm');
      const p = j.provenance as { delta: number; utility: number; baseline: number; metric: string; generator: { name: string }; previous?: { source: string } };
      expect(p).toMatchObject({ metric: 'accuracy', generator: { name: 'fairground-tiny' }, previous: { source: 'import' } });
      expect(j.label).toBe(p.delta > 0 ? 1 : 0);
      const row = page.locator(`[data-testid="candidate-row"][data-doc-id="${j.docId}"]`);
      expect((await row.getByTestId('label').textContent())?.replace(/\s+/g, ' ').trim()).toBe(`${j.label} llm`);
    }
    await screenshot(page, 'labeling-query');
  });

  it('keeps a manual override made on the query page when the labeling runs again', async () => {
    const p2 = page.locator('[data-testid="candidate-row"][data-doc-id="tag-u1-p2"]');
    const before = app.services.collections.repo.getJudgment(collectionId, 'tag-u1', 'tag-u1-p2', 'utility')!;
    await p2.getByTestId('override-toggle').setChecked(before.label === 0);
    await p2.getByTestId('manual-badge').waitFor();
    const params = JSON.parse((app.services.workspace.db.prepare(`SELECT params FROM jobs WHERE kind = 'labels.utility'`).get() as { params: string }).params);
    const job = await app.services.jobs.wait(app.services.labeling.start(params).id);
    expect(job.result).toMatchObject({ calls: { generated: 0, cached: 24 }, judgments: { keptManual: 1 } });
    await page.reload();
    await p2.getByTestId('manual-badge').waitFor();
    expect((await p2.getByTestId('label').textContent())?.replace(/\s+/g, ' ').trim()).toBe(`${1 - before.label} manual`);
    expect(app.services.collections.repo.getJudgment(collectionId, 'tag-u1', 'tag-u1-p2', 'utility')).toMatchObject({
      label: 1 - before.label,
      source: 'manual',
      provenance: { previous: { label: before.label, source: 'llm' } },
    });
  });
});
