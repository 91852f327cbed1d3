/**
 * Issue 26 item 1, end to end in Chromium at 1366×768 (browser mode, demo workspace): each kind goes
 * through its wizard on the simulated reader — the default generator on the bundled collection — to
 * a review that shows the cost of every stage (stage 1 exact, later stages marked as estimates) and
 * the design checks, then "Create and run". Five rapid clicks on Create and run, and then on the
 * experiment page's Run, start one run each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { DEMO_SIM_NAME } from '../../src-main/services/simulation/demoSim';
import { launchBrowser } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-flow-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'flow.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  base = app.server.launchUrl.split('#')[0]!;
  await page.goto(`${base}#/experiments`);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Five clicks dispatched in one task: none waits for the page to disable the button in between. */
async function burst(testId: string): Promise<void> {
  await page.getByTestId(testId).waitFor();
  await page.evaluate(`(() => { const b = document.querySelector('[data-testid="${testId}"]'); for (let i = 0; i < 5; i++) b.click(); })()`);
}

function runsOf(name: string): { id: number; status: string }[] {
  const e = app.services.experiments.repo.experiments().find((x) => x.name === name);
  return e ? app.services.experiments.repo.runs(e.id).map((r) => ({ id: r.id, status: r.status })) : [];
}

async function reviewShowsEveryStage(minStages: number): Promise<void> {
  await page.locator('[data-testid="cost-estimate"][data-state="ready"]').waitFor({ timeout: 120_000 });
  const stages = page.getByTestId('cost-estimate-stage');
  expect(await stages.count()).toBeGreaterThanOrEqual(minStages);
  expect(await stages.first().getAttribute('data-estimated')).toBe('false');
  expect(await stages.nth(1).getAttribute('data-estimated')).toBe('true');
  expect(await stages.nth(1).textContent()).toMatch(/Stage 2: ≈ \d+ calls? — estimated: /);
  // The design checks are part of the review (warnings, or the line saying there are none).
  expect((await page.getByTestId('cost-estimate-warnings').count()) + (await page.getByTestId('cost-estimate-design-ok').count())).toBeGreaterThan(0);
  // Later stages' lines in the table are marked as estimates too.
  expect(await page.locator('[data-testid="cost-estimate-line"][data-estimated="true"]').count()).toBeGreaterThan(0);
}

describe('one experiment flow for every kind (1366×768)', () => {
  it('Fair RAG: collection & queries → generator (the simulated reader by default) → design → review with every stage → Create and run, once', async () => {
    await page.goto(`${base}#/experiments/new`);
    await page.getByTestId('fair-rag-wizard').waitFor({ timeout: 90_000 });
    await page.getByTestId('wiz-name').fill('flow fair rag');
    await page.getByTestId('wiz-queries-ids').check();
    await page.locator('[data-testid="wiz-query-check"][data-query="tag-u1"]').check();
    await page.locator('[data-testid="wiz-query-check"][data-query="head-u1"]').check();
    // Step 2 is the generator, as in every kind's flow; the simulated reader of the demo collection is the default.
    expect(await page.getByTestId('wiz-step-generator').textContent()).toMatch(/^\s*2\s*Generator/);
    await page.getByTestId('wiz-step-generator').click();
    await expect.poll(() => page.getByTestId('wiz-generator').inputValue()).toBe(`model:${DEMO_SIM_NAME}`);
    // The design: attribution judged by the LLM, a stage that depends on the generations.
    await page.getByTestId('wiz-step-evaluation').click();
    await page.getByTestId('wiz-judge').selectOption('nli-llm');
    await page.getByTestId('wiz-step-review').click();
    await reviewShowsEveryStage(2);
    await burst('wiz-create-run');
    await page.getByTestId('experiment-notice').waitFor({ timeout: 90_000 });
    expect(await page.getByTestId('experiment-notice').textContent()).toMatch(/Created flow fair rag \(version 1\) and started a run\./);
    await expect.poll(() => runsOf('flow fair rag').map((r) => r.status), { timeout: 120_000 }).toEqual(['succeeded']);
    expect(app.services.experiments.repo.experiments().filter((x) => x.name === 'flow fair rag')).toHaveLength(1);
  }, 300_000);

  it('the experiment page: five rapid clicks on Run → one run', async () => {
    const before = runsOf('flow fair rag');
    expect(before).toHaveLength(1);
    await expect.poll(() => page.getByTestId('experiment-run').isEnabled()).toBe(true);
    await burst('experiment-run');
    await expect.poll(() => runsOf('flow fair rag').map((r) => r.status), { timeout: 120_000 }).toEqual(['succeeded', 'succeeded']);
    const ids = runsOf('flow fair rag').map((r) => r.id).sort((a, b) => a - b);
    expect(ids[1]! - ids[0]!).toBe(1);
  }, 300_000);

  for (const k of [
    { kind: 'moi', wizard: 'moi-wizard', generator: 'moi-generator', name: 'flow moi', stages: 3 },
    { kind: 'richrag', wizard: 'richrag-wizard', generator: 'rr-generator', name: 'flow richrag', stages: 3 },
  ]) {
    it(`${k.kind}: the same flow on the simulated reader, a review with every stage, Create and run once`, async () => {
      await page.goto(`${base}#/experiments/new/${k.kind}`);
      await page.getByTestId(k.wizard).waitFor({ timeout: 90_000 });
      await page.getByTestId('kw-name').fill(k.name);
      await expect.poll(() => page.getByTestId(k.generator).inputValue()).toBe(`model:${DEMO_SIM_NAME}`);
      await page.getByTestId('kw-queries-ids').check();
      for (const q of ['ma-q1', 'ma-q2']) await page.locator(`[data-testid="kw-query-check"][data-query="${q}"]`).check();
      await reviewShowsEveryStage(k.stages);
      await burst('kw-create-run');
      await page.getByTestId('experiment-notice').waitFor({ timeout: 90_000 });
      await expect.poll(() => runsOf(k.name).map((r) => r.status), { timeout: 180_000 }).toEqual(['succeeded']);
    }, 300_000);
  }
});
