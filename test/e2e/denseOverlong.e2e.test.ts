/**
 * End to end (issue 34 item 8b): the Retrieval runs tab's dense build form chooses what happens to a
 * document longer than the embedding model's context. A tiny GGUF (trained for 512 tokens: 510 tokens
 * of text fit) and a collection with one long document: "refuse" fails the build naming the document,
 * its tokens and the context, with nothing embedded; "cut" builds the set, which lists the cut.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let collectionId: number;
let model: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-dense-long-'));
  process.env.FAIRGROUND_CONFIG_DIR = join(dir, 'config');
  model = join(dir, 'tiny-embed.gguf');
  await writeTinyGguf(model, { preset: 'tiny', seed: 6 });
  app = await startBrowserMode({ workspacePath: join(dir, 'w.fairground') });
  app.services.settings.update({ threads: 1 });
  const repo = app.services.collections.repo;
  const c = repo.create('long documents');
  collectionId = c.id;
  const words = ['tide', 'harbor', 'lantern', 'copper'];
  repo.addDocuments(c.id, [
    { docId: 'short1', title: 'Tides', text: 'The tide turns twice a day.' },
    { docId: 'short2', title: 'Lanterns', text: 'Copper lanterns light the harbor.' },
    { docId: 'long1', title: 'Harbor log', text: Array.from({ length: 300 }, (_, i) => words[i % 4]).join(' ') },
  ]);
  repo.addQueries(c.id, [{ queryId: 'q1', text: 'harbor lanterns', answers: [] }]);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  page.setDefaultTimeout(30_000);
  await page.goto(app.server.launchUrl);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = () => app.server.launchUrl.split('#')[0]!;

describe('dense build form: texts longer than the context', () => {
  it('refuses by default naming the document, then cuts when asked and lists the cut on the set', async () => {
    await page.goto(`${base()}#/collections/${collectionId}/runs`);
    await page.getByTestId('run-method').selectOption('dense');
    await page.getByTestId('dense-panel').waitFor();
    await page.getByTestId('dense-model').selectOption('__path');
    await page.getByTestId('dense-path').fill(model);
    expect(await page.getByTestId('dense-overlong').inputValue()).toBe('refuse');
    await page.getByTestId('dense-build').click();
    const progress = page.getByTestId('dense-progress');
    await expect.poll(() => progress.getAttribute('data-status'), { timeout: 60_000 }).toBe('failed');
    expect(await progress.textContent()).toMatch(/document 'long1' has \d+ tokens; the embedding model's context is 512 tokens, which holds at most 510 tokens of text .*Nothing was embedded/);
    expect(await page.getByTestId('dense-none').isVisible()).toBe(true);

    await page.getByTestId('dense-overlong').selectOption('cut');
    await page.getByTestId('dense-build').click();
    const set = page.locator('[data-testid="dense-set"][data-status="ready"]');
    await set.waitFor({ timeout: 60_000 });
    expect(await set.getByTestId('dense-set-count').textContent()).toBe('3 / 3');
    const warnings = page.getByTestId('dense-set-warnings');
    await warnings.waitFor();
    expect(await warnings.textContent()).toMatch(/1 document was cut to the embedding model's context \(512 tokens: at most 510 tokens of text\), \d+ tokens cut in all \(e\.g\. 'long1' \d+ → 51\d\)/);
  }, 120_000);
});
