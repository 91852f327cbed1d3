/**
 * End to end at 1366×768 (issue 26 items 1, 2, 3, 6), each a small surprise that is gone:
 *  1. the demo specs stay offered once experiments exist (folded under "From a demo spec…");
 *  2. the tray's "N failed" badge clears when the tray is opened or its × is pressed, stays
 *     cleared after a reload, and comes back for a new failure only;
 *  3. an error raised three times shows once with "×3", names the field as the UI does
 *     ("Folder 1", not `folders[0]`), and is dismissable;
 *  6. one export click gives exactly one download: a .zip with the file and its manifest (the
 *     manifest names the file and its SHA-256), or, with "with manifest" off, the file alone.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { launchBrowser, screenshot } from '../support/browser';
import { unzipEntries } from '../support/zip';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let experimentId: number;
let runId: number;

const SPEC = {
  kind: 'fair-rag',
  name: 'polish e2e',
  collection: 'Fairground demo',
  queries: ['head-u1'],
  retrievers: [{ name: 'bm25', method: 'bm25' }],
  generator: { model: 'fairground-tiny' },
  decoding: { maxTokens: 4 },
  k: 3,
  samples: 2,
  alphas: [0, 2],
  attribution: { judge: 'nli-llm', format: 'yes-no', maxTokens: 2 },
};

async function failJob(title: string): Promise<void> {
  const job = app.services.jobs.start('test.fail', title, {}, () => Promise.reject(new Error(`${title}: broken`)));
  await app.services.jobs.wait(job.id);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-polish-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'w', 'polish.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  const e = app.services.experiments.create(SPEC);
  experimentId = e.id;
  const job = app.services.experiments.startRun(e.id);
  const done = await app.services.jobs.wait(job.id);
  if (done.status !== 'succeeded') throw new Error(`the run ended ${done.status}: ${done.error}`);
  runId = app.services.experiments.listRuns(e.id)[0]!.id;
  await failJob('Import qrels into Weather');
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 }, acceptDownloads: true });
  page.setDefaultTimeout(60_000);
  await page.goto(app.server.launchUrl, { timeout: 120_000 });
  await page.getByTestId('screen-collections').waitFor();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function visit(hash: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
}

/** Clicks and collects every download that starts within 3 s after the first. */
async function downloadsOf(testId: string): Promise<{ name: string; body: Buffer }[]> {
  const got: Download[] = [];
  const on = (d: Download) => got.push(d);
  page.on('download', on);
  await page.getByTestId(testId).first().click();
  await expect.poll(() => got.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
  await page.waitForTimeout(3000); // a second download (the old separate manifest) would arrive here
  page.off('download', on);
  return Promise.all(got.map(async (d) => ({ name: d.suggestedFilename(), body: readFileSync((await d.path())!) })));
}

describe('the remaining small surprises', () => {
  it('item 1: with an experiment present, the demo specs are still offered and one can be added', async () => {
    await visit('#/experiments');
    await page.getByTestId('experiments-table').waitFor();
    const offer = page.getByTestId('demo-specs');
    await offer.waitFor();
    expect(await offer.getByTestId('demo-spec').first().isVisible()).toBe(false); // folded
    await page.getByTestId('demo-specs-toggle').click();
    const files = await offer.getByTestId('demo-spec').evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { file: string } }).dataset.file));
    expect(files.length).toBeGreaterThanOrEqual(3);
    await screenshot(page, 'polish-demo-specs-folded');
    const before = app.services.experiments.list().length;
    await offer.locator('[data-testid="demo-spec"][data-file="moi.json"]').getByTestId('demo-spec-add').click();
    await expect.poll(() => app.services.experiments.list().length).toBe(before + 1);
    await visit('#/experiments');
    await page.getByTestId('demo-specs').waitFor();
  });

  it('item 2: the failed badge clears when the tray is opened, stays cleared after a reload, and counts new failures only', async () => {
    const badge = page.getByTestId('badge-failed');
    await expect.poll(() => badge.textContent()).toBe('1 failed');
    await page.getByTestId('job-tray-toggle').click();
    await badge.waitFor({ state: 'detached' });
    await page.getByTestId('job-tray-toggle').click();
    await page.reload();
    await page.getByTestId('job-tray').waitFor();
    await page.waitForTimeout(1000);
    expect(await badge.count()).toBe(0);
    await failJob('Import corpus into News');
    await expect.poll(() => badge.textContent()).toBe('1 failed');
    await page.getByTestId('badge-failed-dismiss').click();
    await badge.waitFor({ state: 'detached' });
  });

  it('item 3: an error raised three times shows once, ×3, with the field as the UI names it; dismissable', async () => {
    await visit('#/settings');
    const input = page.getByTestId('allowed-folder-input');
    await input.fill('not/absolute');
    for (let i = 0; i < 3; i++) {
      await page.getByTestId('allowed-folder-add').click();
      await expect.poll(() => page.getByTestId('toast-count').count().then(async (n) => (n ? await page.getByTestId('toast-count').textContent() : i === 0 ? '×1' : ''))).toBe(`×${i + 1}`);
    }
    const errors = page.getByTestId('error');
    expect(await errors.count()).toBe(1);
    const text = await errors.first().innerText();
    // Settings → Add folder asks for the folder (files.requestFolder, issue 26): its field `path` reads as "Path".
    expect(text).toContain('Path: the folder must be an absolute path');
    expect(text).not.toMatch(/path: |folders\[0\]|\[\d+\]/);
    expect(await page.getByTestId('toast-field').textContent()).toBe('Field: Path');
    await screenshot(page, 'polish-error-count');
    await errors.first().getByRole('button', { name: 'Dismiss error' }).click();
    expect(await errors.count()).toBe(0);
  });

  it('item 6: one click, one download: a .zip of the file and its manifest, or the file alone', async () => {
    await visit(`#/experiments/${experimentId}/runs/${runId}`);
    await page.getByTestId('fr-tab-summary').click();
    // A table the renderer writes: CSV of the summary.
    const [zip, ...more] = await downloadsOf('fr-summary-export-csv');
    expect(more).toEqual([]);
    expect(zip!.name).toMatch(/^polish_e2e-run\d+\.summary\.csv\.zip$/);
    const entries = unzipEntries(zip!.body);
    const csv = entries.find((f) => f.name.endsWith('.summary.csv'))!;
    expect(entries.map((f) => f.name)).toEqual([csv.name, `${csv.name}.manifest.json`]);
    expect(csv.body.toString('utf8').split('\n')[0]).toMatch(/^[\x20-\x7e]+$/); // item 5: ASCII headers
    expect(csv.body.toString('utf8').split('\n')[0]).toContain('EE-D_norm_mean');
    const manifest = JSON.parse(entries[1]!.body.toString('utf8')) as { export: { file: string; sha256: string; bytes: number } };
    expect(manifest.export).toMatchObject({ file: csv.name, sha256: createHash('sha256').update(csv.body).digest('hex'), bytes: csv.body.length });
    // A file the service writes: the per-query CSV of the Exports tab.
    await page.getByTestId('fr-tab-exports').click();
    const [served, ...again] = await downloadsOf('fr-export-per-query-csv');
    expect(again).toEqual([]);
    expect(unzipEntries(served!.body).map((f) => f.name)).toEqual([served!.name.replace(/\.zip$/, ''), served!.name.replace(/\.zip$/, '.manifest.json')]);
    // "with manifest" off: the file alone.
    await page.getByTestId('export-with-manifest').first().uncheck();
    const [alone, ...none] = await downloadsOf('fr-export-per-query-csv');
    expect(none).toEqual([]);
    expect(alone!.name).toMatch(/\.per-query\.csv$/);
    expect(alone!.body.toString('utf8')).toMatch(/^query_id,/);
    await page.getByTestId('export-with-manifest').first().check();
  });
});
