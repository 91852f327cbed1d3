/**
 * End to end in Chromium (browser mode): one import dialog takes a corpus, queries and qrels
 * together (issue 17 item 4). Each file is previewed (the corpus's and the queries' columns mapped
 * from their headers), the three are imported as one job into a new collection, and the list shows
 * its counts; a bad qrels line fails the whole import in the dialog, naming file and line, and no
 * collection is created. A file dropped on a part in browser mode (no path there) is uploaded, even
 * with paths chosen for the others; a single-kind import takes a dropped file the same way.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-bundle-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'bundle.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 860 } });
  await page.goto(app.server.launchUrl);
  await page.getByTestId('screen-collections').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, content: string): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

/** A DataTransfer holding one file, made in the page: what a drop from this computer carries (in browser mode, no path). */
function dropOf(name: string, content: string) {
  return page.evaluateHandle(`(() => { const dt = new DataTransfer(); dt.items.add(new File([${JSON.stringify(content)}], ${JSON.stringify(name)})); return dt; })()`);
}

const CORPUS = 'doc,headline,body\nc1,Rain,It rained all day.\nc2,Sun,Clear skies all week.\nc3,Fog,Morning fog lifted by noon.\n';
const QUERIES = '{"qid": "q1", "query": "Was it rainy?", "answers": ["yes"]}\n{"qid": "q2", "query": "Was it foggy?", "answers": ["in the morning"]}\n';

describe('one import dialog for a corpus, its queries and qrels', () => {
  it('previews the three files and imports them as one job into a new collection', async () => {
    await page.getByTestId('import-open').click();
    const dialog = page.getByTestId('import-dialog');
    await dialog.waitFor();
    // The combined import is the dialog's default kind.
    expect(await page.getByTestId('import-kind').inputValue()).toBe('bundle');
    await page.getByTestId('import-name').fill('Weather bundle');
    expect(await page.getByTestId('import-start').isDisabled()).toBe(true);

    await page.getByTestId('bundle-corpus-file').setInputFiles(file('weather.csv', CORPUS));
    await dialog.getByTestId('bundle-corpus-preview').waitFor();
    expect(await page.getByTestId('bundle-corpus-map-idColumn').inputValue()).toBe('doc');
    expect(await page.getByTestId('bundle-corpus-map-textColumn').inputValue()).toBe('body');
    expect(await page.getByTestId('bundle-corpus-map-titleColumn').inputValue()).toBe('headline');
    expect(await dialog.getByTestId('bundle-corpus-preview').locator('tbody tr').count()).toBe(3);

    await page.getByTestId('bundle-queries-file').setInputFiles(file('weather-queries.jsonl', QUERIES));
    await dialog.getByTestId('bundle-queries-preview').waitFor();
    expect(await page.getByTestId('bundle-queries-map-idColumn').inputValue()).toBe('qid');
    expect(await page.getByTestId('bundle-queries-map-textColumn').inputValue()).toBe('query');

    await page.getByTestId('bundle-qrels-file').setInputFiles(file('weather.qrels', 'q1 0 c1 1\nq1 0 c2 0\nq2 0 c3 1\n'));
    await expect.poll(() => dialog.getByTestId('bundle-qrels-preview').textContent()).toContain('q2 0 c3 1');

    await expect.poll(() => page.getByTestId('import-start').isEnabled()).toBe(true);
    await page.getByTestId('import-start').click();
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 }); // closes when the job succeeds
    const row = page.locator('[data-testid="collection-row"][data-name="Weather bundle"]');
    await row.waitFor();
    expect(await row.getByTestId('count-documents').textContent()).toBe('3');
    expect(await row.getByTestId('count-queries').textContent()).toBe('2');
    expect(await row.getByTestId('count-judgments').textContent()).toBe('3');
    // One job did it all.
    const jobs = app.services.jobs.list().filter((j) => j.kind === 'collections.importBundle');
    expect(jobs.map((j) => [j.title, j.status])).toEqual([['Import corpus, queries, qrels into Weather bundle', 'succeeded']]);
  }, 90_000);

  it('a bad qrels line fails the whole import in the dialog and creates no collection', async () => {
    await page.getByTestId('import-open').click();
    const dialog = page.getByTestId('import-dialog');
    await dialog.waitFor();
    // The parts start empty after a successful import.
    expect(await page.getByTestId('bundle-corpus-file').inputValue()).toBe('');
    await page.getByTestId('import-name').fill('Broken bundle');
    await page.getByTestId('bundle-corpus-file').setInputFiles(file('broken.csv', CORPUS));
    await dialog.getByTestId('bundle-corpus-preview').waitFor();
    await page.getByTestId('bundle-qrels-file').setInputFiles(file('broken.qrels', 'q1 0 c1 1\nq1 0 c2\n'));
    await dialog.getByTestId('bundle-qrels-preview').waitFor();
    await expect.poll(() => page.getByTestId('import-start').isEnabled()).toBe(true);
    await page.getByTestId('import-start').click();
    const shown = dialog.getByTestId('import-error');
    await shown.waitFor({ timeout: 30_000 });
    expect(await shown.textContent()).toContain('broken.qrels:2');
    expect(await shown.textContent()).toContain('nothing was changed');
    await dialog.getByRole('button', { name: 'Close' }).click();
    expect((await app.services.collections.list()).map((c) => c.name)).toEqual(['Weather bundle']);
  }, 90_000);

  it('a file dropped on a part is uploaded in browser mode, beside parts given by path', async () => {
    await page.getByTestId('import-open').click();
    const dialog = page.getByTestId('import-dialog');
    await dialog.waitFor();
    await page.getByTestId('import-name').fill('Dropped bundle');
    // Paths on the Fairground machine for the corpus (typed) …
    await dialog.locator('input[type="radio"][value="path"]').check();
    await page.getByTestId('bundle-corpus-path').fill(file('dropped-corpus.csv', CORPUS));
    await page.getByTestId('bundle-corpus-path').press('Tab');
    await dialog.getByTestId('bundle-corpus-preview').waitFor();
    // … and the queries dropped from this computer: a File without a path, so it is uploaded.
    const drop = await dropOf('dropped-queries.jsonl', QUERIES);
    await page.getByTestId('bundle-queries').dispatchEvent('dragover', { dataTransfer: drop });
    await page.getByTestId('bundle-queries').dispatchEvent('drop', { dataTransfer: drop });
    await dialog.getByTestId('bundle-queries-preview').waitFor();
    expect(await page.getByTestId('bundle-queries-chosen').textContent()).toContain('dropped-queries.jsonl: dropped, uploaded with the import');
    expect(await page.getByTestId('bundle-queries-map-idColumn').inputValue()).toBe('qid');
    await expect.poll(() => page.getByTestId('import-start').isEnabled()).toBe(true);
    await page.getByTestId('import-start').click();
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
    const row = page.locator('[data-testid="collection-row"][data-name="Dropped bundle"]');
    await row.waitFor();
    expect(await row.getByTestId('count-documents').textContent()).toBe('3');
    expect(await row.getByTestId('count-queries').textContent()).toBe('2');
    const detail = app.services.collections.get(app.services.collections.list().find((c) => c.name === 'Dropped bundle')!.id);
    expect(detail.sources.map((s) => [s.file, s.kind])).toEqual([
      [join(dir, 'dropped-corpus.csv'), 'corpus'],
      ['dropped-queries.jsonl', 'queries'],
    ]);
  }, 90_000);

  it('a single-kind import takes a dropped file too (uploaded in browser mode)', async () => {
    await page.getByTestId('import-open').click();
    const dialog = page.getByTestId('import-dialog');
    await dialog.waitFor();
    await page.getByTestId('import-name').fill('Dropped bundle');
    await page.getByTestId('import-kind').selectOption('qrels');
    const drop = await dropOf('dropped.qrels', 'q1 0 c1 1\nq2 0 c3 1\n');
    await page.getByTestId('import-files').dispatchEvent('dragover', { dataTransfer: drop });
    await page.getByTestId('import-files').dispatchEvent('drop', { dataTransfer: drop });
    await dialog.getByTestId('import-preview').waitFor();
    expect(await page.getByTestId('import-chosen').textContent()).toContain('dropped.qrels');
    await page.getByTestId('import-start').click();
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
    const row = page.locator('[data-testid="collection-row"][data-name="Dropped bundle"]');
    await expect.poll(() => row.getByTestId('count-judgments').textContent()).toBe('2');
  }, 90_000);
});
