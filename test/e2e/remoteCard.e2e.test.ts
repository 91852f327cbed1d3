/**
 * End to end (issue 24 items 3, 4, 8): adding a server through the Models screen asks it first —
 * an unlisted model name is refused naming what it lists — and the card shows what the server can
 * do, how its weights are identified, "unverified" for a server added without asking, and a
 * per-request timeout that can be changed. Against a loopback stand-in server that, like
 * llama.cpp's, reports GGUF metadata and ignores echo.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser } from '../support/browser';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let server: FakeOpenAiServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-remote-'));
  server = await FakeOpenAiServer.start({ models: ['tiny'], root: null, meta: { n_params: 10, size: 20 }, echo: 'ignore', constraintFields: ['response_format', 'guided_json'] });
  app = await startBrowserMode({ workspacePath: join(dir, 'r.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(app.server.launchUrl);
  await page.locator('nav a[data-screen="models"]').click();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('remote model card', () => {
  it('refuses a model name the server does not list, naming what it lists', async () => {
    await page.getByLabel('Server name').fill('typo');
    await page.getByLabel('Base URL').fill(server.baseUrl);
    await page.getByLabel('Model on the server').fill('tinyy');
    await page.getByRole('button', { name: 'Add server' }).click();
    const err = page.getByTestId('error').first();
    await err.waitFor();
    expect(await err.textContent()).toContain(`does not serve "tinyy": it lists "tiny"`);
    await err.getByRole('button', { name: 'Dismiss error' }).click();
    expect(await page.getByTestId('remote-card').count()).toBe(0);
  });

  it('shows what the server can do and how its weights are identified', async () => {
    await page.getByLabel('Server name').fill('llama');
    await page.getByLabel('Model on the server').fill('tiny');
    await page.getByLabel('Server kind').selectOption('llama.cpp');
    await page.getByRole('button', { name: 'Add server' }).click();
    const card = page.getByTestId('remote-card').filter({ hasText: 'llama' });
    await card.waitFor();
    expect(await card.getByTestId('remote-identity').textContent()).toContain('identified by a fingerprint of greedy outputs, verified');
    const can = (await card.getByTestId('remote-capabilities').textContent())!.replace(/\s+/g, ' ');
    expect(can).toContain('scoring (prompt log-probabilities) no');
    expect(can).toContain("scoring (prompt log-probabilities) no — MoI and the NLI judge's threshold need it;");
    // The stand-in honours response_format and guided_json and ignores llama.cpp's own fields (asked on chat too).
    expect(can).toContain(
      'constraints honoured: completions.guided_json, completions.response_format, chat.response_format (not: completions.json_schema, completions.grammar, completions.structured_outputs, chat.grammar, chat.json_schema)',
    );
    expect(await card.getByTestId('remote-unverified').count()).toBe(0);
  });

  it('marks a server added without asking as unverified, and changes the timeout', async () => {
    await app.services.models.addRemote({ name: 'offline', baseUrl: 'http://127.0.0.1:9/v1', model: 'm', serverKind: 'vllm', maxConcurrency: 1, probe: false });
    await page.reload();
    await page.locator('nav a[data-screen="models"]').click();
    const card = page.getByTestId('remote-card').filter({ hasText: 'offline' });
    await card.waitFor();
    expect(await card.getByTestId('remote-unverified').textContent()).toBe('unverified');
    expect(await card.getByTestId('remote-identity').textContent()).toContain('unverified');
    expect(await card.getByTestId('remote-capabilities').textContent()).toContain('not asked');
    expect(await card.textContent()).toContain('300 s per request');
    await card.getByTestId('remote-timeout-edit').click();
    await card.getByTestId('remote-timeout-input').fill('45');
    await card.getByTestId('remote-timeout-save').click();
    await expect.poll(async () => card.textContent()).toContain('45 s per request');
    expect(app.services.models.listRemotes().find((r) => r.name === 'offline')!.timeoutMs).toBe(45_000);
  });
});
