/**
 * End to end: register a generated tiny GGUF through the Models screen, watch it get hashed,
 * generate with it (real llama.cpp in the engine process), and see the repeat come from the cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser, screenshot } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let modelPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-models-'));
  modelPath = join(dir, 'tiny-e2e.gguf');
  await writeTinyGguf(modelPath, { preset: 'tiny', seed: 3 });
  app = await startBrowserMode({ workspacePath: join(dir, 'm.fairground') });
  app.services.settings.update({ threads: 1 });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(app.server.launchUrl);
  await page.locator('nav a[data-screen="models"]').click();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Models screen', () => {
  it('adds a GGUF by path and shows its header and SHA-256', async () => {
    await page.getByTestId('model-path').fill(modelPath);
    await page.getByTestId('add-model').click();
    const card = page.getByTestId('model-card').first();
    await card.waitFor();
    expect(await card.textContent()).toContain('tiny-e2e');
    expect(await card.textContent()).toContain('llama');
    await page.getByTestId('model-card').and(page.locator('[data-status="ready"]')).waitFor({ timeout: 20_000 });
    expect(await card.getByTestId('model-sha').textContent()).toMatch(/^[0-9a-f]{64}$/);
  });

  it('shows a clear error for a path that is not a GGUF', async () => {
    await page.getByTestId('model-path').fill(join(dir, 'nope.gguf'));
    await page.getByTestId('add-model').click();
    const err = page.getByTestId('error').first();
    await err.waitFor();
    expect(await err.textContent()).toContain('nope.gguf');
    await err.getByRole('button', { name: 'Dismiss error' }).click();
  });

  it('generates with the model, and the repeat comes from the cache', async () => {
    const card = page.getByTestId('model-card').first();
    await card.getByTestId('model-try').click();
    await card.getByTestId('try-prompt').fill('Fair ranking means');
    await card.getByTestId('try-run').click();
    // The text streams in; the stats line replaces the live counter once the generation ends (the
    // first load also tunes the model's threads).
    await card.getByTestId('try-stats').waitFor({ timeout: 120_000 });
    expect(await card.getByTestId('try-stats').textContent()).toMatch(/\d+ tokens · \w+ · \d+ ms/);
    const first = await card.getByTestId('try-output').textContent();
    await card.getByTestId('try-run').click();
    await expect.poll(() => card.getByTestId('try-stats').textContent(), { timeout: 20_000 }).toContain('from the cache');
    expect(await card.getByTestId('try-output').textContent()).toBe(first);
    await screenshot(page, 'models');
  });
});
