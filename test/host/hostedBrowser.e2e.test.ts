/**
 * End to end with the services off the server's thread (issue 17 item 6): browser mode as
 * `fairground serve` runs it (startHostedBrowserMode), the built renderer in Chromium. While a
 * 100,000-document import commits in the host, the page moves between screens; the import's
 * progress and end reach the job tray over the WebSocket, and the collection is listed.
 * Behaviour only (no timings): a screen shown while the job was still running.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostedBrowserMode, type HostedBrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser, openJobTray } from '../support/browser';
import { writeCorpus } from '../stress/support';

let dir: string;
let app: HostedBrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-hosted-'));
  writeCorpus(join(dir, 'corpus.jsonl'), 100_000, 3);
  app = await startHostedBrowserMode({ workspacePath: join(dir, 'hosted.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
  await page.goto(app.server.launchUrl);
  await page.getByTestId('workspace-indicator').getByText('hosted.fairground').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the app with its services in the host thread', () => {
  it('moves between screens while a 100k-document import commits; the tray shows the import end', async () => {
    const api = async (method: string, input: unknown) => {
      const res = await fetch(`${app.server.url}api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
        body: JSON.stringify(input),
      });
      return (await res.json()) as { ok: boolean; data: { id: string; status: string } };
    };
    const started = await api('collections.import', { collectionName: 'big', kind: 'corpus', files: [join(dir, 'corpus.jsonl')] });
    expect(started.ok).toBe(true);
    const running = async () => ['queued', 'running'].includes((await api('jobs.get', { id: started.data.id })).data.status);
    let shownWhileRunning = 0;
    for (const [id, heading] of [
      ['settings', 'Settings'],
      ['models', 'Models'],
      ['experiments', 'Experiments'],
      ['collections', 'Collections'],
    ] as const) {
      const before = await running();
      await page.locator(`nav a[data-screen="${id}"]`).click();
      await page.getByTestId(`screen-${id}`).waitFor();
      expect(await page.locator('main h1').textContent()).toBe(heading);
      if (before && (await running())) shownWhileRunning++;
    }
    expect(shownWhileRunning).toBeGreaterThanOrEqual(1);
    await openJobTray(page);
    const job = page.getByTestId('job-tray').locator('[data-testid="job"][data-status="succeeded"]').first();
    await job.waitFor({ timeout: 120_000 });
    expect(await job.textContent()).toContain("added 100,000 documents to 'big'");
    await page.getByText('big', { exact: true }).first().waitFor({ timeout: 30_000 });
  }, 240_000);
});
