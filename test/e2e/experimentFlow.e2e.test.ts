/**
 * Issue 26 items 1 and 2, end to end in Chromium at 1366×768 (browser mode, demo workspace): every kind's
 * wizard is the same five steps in one frame — collection & queries → generator → the kind's design →
 * metrics & tests → review — walked here with the keyboard (Next focused and pressed with Enter; focus
 * lands on the step's title), without horizontal scroll at any step, on the simulated reader (the
 * default generator on the bundled collection). The review shows the cost of every stage (stage 1
 * exact, later stages marked as estimates) and the design warning that applies (k ≥ the candidates
 * for Fair RAG; one query for MoI and RichRAG), then "Create and run" pressed five times at once starts
 * one run, which succeeds and opens as results. A field's problem ("must not be empty") shows only once
 * the field was touched or Next was pressed; Next is disabled while its step has a problem and says
 * which field; a problem of a value still being checked is not shown (no stale flash). Five rapid clicks on the experiment page's Run start one run.
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

const STEP_LABELS = ['1 Collection & queries', '2 Generator', '3 Design', '4 Metrics & tests', '5 Review'];
const text = async (testId: string) => (await page.getByTestId(testId).textContent())?.trim() ?? '';

/** Five clicks dispatched in one task: none waits for the page to disable the button in between. */
async function burst(testId: string): Promise<void> {
  await page.getByTestId(testId).waitFor();
  await page.evaluate(`(() => { const b = document.querySelector('[data-testid="${testId}"]'); for (let i = 0; i < 5; i++) b.click(); })()`);
}

function runsOf(name: string): { id: number; status: string }[] {
  const e = app.services.experiments.repo.experiments().find((x) => x.name === name);
  return e ? app.services.experiments.repo.runs(e.id).map((r) => ({ id: r.id, status: r.status })) : [];
}

/** The page scrolls sideways when its content is wider than the window. */
const horizontalOverflow = (): number => {
  const d = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
  return d.scrollWidth - d.clientWidth;
};

/** The steps listed, as "n Label". */
async function stepList(): Promise<string[]> {
  return (await page.locator('[data-testid^="wiz-step-"]:not([data-testid="wiz-step-title"])').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** Next with the keyboard: focus it, press Enter; the new step's title gets the focus. Returns that title. */
async function nextByKeyboard(expectTitle: RegExp): Promise<void> {
  await expect.poll(() => page.getByTestId('wiz-next').getAttribute('aria-disabled'), { timeout: 15_000 }).toBeNull();
  await page.getByTestId('wiz-next').focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => text('wiz-step-title'), { timeout: 15_000 }).toMatch(expectTitle);
  expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document.activeElement?.getAttribute('data-testid'))).toBe('wiz-step-title');
  expect(await page.evaluate(horizontalOverflow)).toBeLessThanOrEqual(0);
}

/** The review: every stage priced (stage 1 exact, later ones estimates), and the design warning `code` shown. */
async function reviewShows(code: string, minStages: number): Promise<void> {
  await page.locator('[data-testid="cost-estimate"][data-state="ready"]').waitFor({ timeout: 120_000 });
  const stages = page.getByTestId('cost-estimate-stage');
  expect(await stages.count()).toBeGreaterThanOrEqual(minStages);
  expect(await stages.first().getAttribute('data-estimated')).toBe('false');
  expect(await stages.nth(1).getAttribute('data-estimated')).toBe('true');
  expect(await stages.nth(1).textContent()).toMatch(/Stage 2: ≈ \d+ calls? — estimated: /);
  expect(await page.locator('[data-testid="cost-estimate-line"][data-estimated="true"]').count()).toBeGreaterThan(0);
  // The design warning is the service's for the spec shown.
  const spec = JSON.parse(await text('wiz-spec-json')) as Record<string, unknown>;
  const codes = (await app.services.experiments.designWarnings(spec)).map((w) => w.code);
  expect(codes).toContain(code);
  const shown = await page.locator('[data-testid="cost-estimate-warnings-item"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-code')));
  expect(shown).toEqual(codes);
  expect(await page.evaluate(horizontalOverflow)).toBeLessThanOrEqual(0);
}

describe('one experiment flow for every kind (1366×768)', () => {
  for (const k of [
    { kind: 'fair-rag', href: '#/experiments/new', wizard: 'fair-rag-wizard', name: 'wiz-name', nameIssue: 'issue-name' },
    { kind: 'moi', href: '#/experiments/new/moi', wizard: 'moi-wizard', name: 'kw-name', nameIssue: 'issue-name' },
    { kind: 'richrag', href: '#/experiments/new/richrag', wizard: 'richrag-wizard', name: 'kw-name', nameIssue: 'issue-name' },
  ]) {
    it(`${k.kind}: "must not be empty" waits for a touch or Next; Next is disabled with the reason`, async () => {
      await page.goto(`${base}${k.href}`);
      await page.getByTestId(k.wizard).waitFor({ timeout: 90_000 });
      expect(await stepList()).toEqual(STEP_LABELS);
      // The service has checked the fresh form (the empty name is a problem) but no field shows one.
      await expect.poll(() => text('wiz-status'), { timeout: 15_000 }).toBe('Not complete yet');
      expect(await page.locator('.field-issue').count()).toBe(0);
      expect(await page.getByText('must not be empty').count()).toBe(0);
      expect(await page.getByTestId('wiz-next').getAttribute('aria-disabled')).toBe('true');
      expect(await text('wiz-next-reason')).toBe('To go on, complete the experiment name.');
      // Pressed anyway (keyboard): the step stays, the name's problem shows, and the name field has the focus.
      await page.getByTestId('wiz-next').focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => text(k.nameIssue)).toBe('must not be empty');
      expect(await text('wiz-step-title')).toMatch(/^1\. Collection & queries/);
      expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document.activeElement?.getAttribute('data-testid'))).toBe(k.name);
      expect(await text('wiz-status')).toBe('1 problem');
      // Typing clears it; Next is enabled.
      await page.getByTestId(k.name).fill('x');
      await page.getByTestId(k.nameIssue).waitFor({ state: 'detached' });
      await expect.poll(() => page.getByTestId('wiz-next').getAttribute('aria-disabled')).toBeNull();
      expect(await page.getByTestId('wiz-next-reason').count()).toBe(0);

      // A fresh wizard: leaving the empty name (a touch without typing) shows the problem.
      await page.goto(`${base}#/experiments`);
      await page.goto(`${base}${k.href}`);
      await page.getByTestId(k.wizard).waitFor({ timeout: 90_000 });
      await expect.poll(() => text('wiz-status'), { timeout: 15_000 }).toBe('Not complete yet');
      expect(await page.locator('.field-issue').count()).toBe(0);
      await page.getByTestId(k.name).focus();
      await page.keyboard.press('Tab');
      await expect.poll(() => text(k.nameIssue)).toBe('must not be empty');
      // A problem of a value being typed is not shown while its check is on the way (no stale flash)…
      await page.getByTestId(k.name).fill('y');
      expect(await page.getByTestId(k.nameIssue).count()).toBe(0);
      await expect.poll(() => text('wiz-status'), { timeout: 15_000 }).toBe('Valid');
      expect(await page.getByTestId(k.nameIssue).count()).toBe(0);
      // …and emptied again, the touched field shows it once checked.
      await page.getByTestId(k.name).fill('');
      await expect.poll(() => text(k.nameIssue), { timeout: 15_000 }).toBe('must not be empty');
    }, 180_000);
  }

  it('Fair RAG: the five steps by keyboard to a review with every stage and the k ≥ candidates warning → Create and run once → results', async () => {
    await page.goto(`${base}#/experiments/new`);
    await page.getByTestId('fair-rag-wizard').waitFor({ timeout: 90_000 });
    await page.getByTestId('wiz-name').fill('flow fair rag');
    await page.getByTestId('wiz-queries-ids').check();
    await page.locator('[data-testid="wiz-query-check"][data-query="tag-u1"]').check();
    await page.locator('[data-testid="wiz-query-check"][data-query="head-u1"]').check();
    expect(await page.evaluate(horizontalOverflow)).toBeLessThanOrEqual(0);
    await nextByKeyboard(/^2\. Generator/);
    await expect.poll(() => page.getByTestId('wiz-generator').inputValue()).toBe(`model:${DEMO_SIM_NAME}`);
    await nextByKeyboard(/^3\. Design/);
    // k = 5 on queries of 4–5 candidates: every arm shows the same documents.
    await page.getByTestId('wiz-k').fill('5');
    await nextByKeyboard(/^4\. Metrics & tests/);
    // Attribution judged by the LLM: a stage that depends on the generations.
    await page.getByTestId('wiz-judge').selectOption('nli-llm');
    await nextByKeyboard(/^5\. Review/);
    await page.getByTestId('wiz-valid').waitFor({ timeout: 15_000 });
    await reviewShows('k-covers-candidates', 2);
    // k ≥ every query's candidates blocks the run (issue 34 item 3): Create and run stays off until k is lowered.
    expect(await page.getByTestId('wiz-create-run').isDisabled()).toBe(true);
    await page.getByTestId('wiz-step-design').click();
    await page.getByTestId('wiz-k').fill('2');
    await page.getByTestId('wiz-step-review').click();
    await expect.poll(() => page.getByTestId('wiz-create-run').isDisabled(), { timeout: 15_000 }).toBe(false);
    await burst('wiz-create-run');
    await page.getByTestId('experiment-notice').waitFor({ timeout: 90_000 });
    expect(await text('experiment-notice')).toMatch(/Created flow fair rag \(version 1\) and started a run\./);
    await expect.poll(() => runsOf('flow fair rag').map((r) => r.status), { timeout: 120_000 }).toEqual(['succeeded']);
    expect(app.services.experiments.repo.experiments().filter((x) => x.name === 'flow fair rag')).toHaveLength(1);
    await page.locator('[data-testid="run-row"][data-status="succeeded"]').waitFor({ timeout: 60_000 });
    await page.getByTestId('run-link').first().click();
    await page.getByTestId('fair-rag-view').waitFor({ timeout: 60_000 });
    expect(await text('run-status')).toBe('succeeded');
  }, 300_000);

  it('the experiment page: five rapid clicks on Run → one run', async () => {
    const e = app.services.experiments.repo.experiments().find((x) => x.name === 'flow fair rag')!;
    await page.goto(`${base}#/experiments/${e.id}`);
    const before = runsOf('flow fair rag');
    expect(before).toHaveLength(1);
    await expect.poll(() => page.getByTestId('experiment-run').isEnabled(), { timeout: 60_000 }).toBe(true);
    await burst('experiment-run');
    await expect.poll(() => runsOf('flow fair rag').map((r) => r.status), { timeout: 120_000 }).toEqual(['succeeded', 'succeeded']);
    const ids = runsOf('flow fair rag').map((r) => r.id).sort((a, b) => a - b);
    expect(ids[1]! - ids[0]!).toBe(1);
  }, 300_000);

  for (const k of [
    { kind: 'moi', wizard: 'moi-wizard', generator: 'moi-generator', name: 'flow moi', stages: 3, view: 'moi-run' },
    { kind: 'richrag', wizard: 'richrag-wizard', generator: 'rr-generator', name: 'flow richrag', stages: 3, view: 'richrag-run' },
  ]) {
    it(`${k.kind}: the same five steps by keyboard, a review with every stage and the one-query warning → Create and run once → results`, async () => {
      await page.goto(`${base}#/experiments/new/${k.kind}`);
      await page.getByTestId(k.wizard).waitFor({ timeout: 90_000 });
      expect(await stepList()).toEqual(STEP_LABELS);
      await page.getByTestId('kw-name').fill(k.name);
      await page.getByTestId('kw-queries-ids').check();
      await page.locator('[data-testid="kw-query-check"][data-query="ma-q1"]').check();
      await expect.poll(() => text('kw-query-count')).toMatch(/^1 query selected/);
      expect(await page.evaluate(horizontalOverflow)).toBeLessThanOrEqual(0);
      await nextByKeyboard(/^2\. Generator/);
      await expect.poll(() => page.getByTestId(k.generator).inputValue()).toBe(`model:${DEMO_SIM_NAME}`);
      await nextByKeyboard(/^3\. Design/);
      await nextByKeyboard(/^4\. Metrics & tests/);
      await nextByKeyboard(/^5\. Review/);
      await page.getByTestId('wiz-valid').waitFor({ timeout: 15_000 });
      // One query: no test can give a significant result.
      await reviewShows('too-few-queries', k.stages);
      await burst('wiz-create-run');
      await page.getByTestId('experiment-notice').waitFor({ timeout: 90_000 });
      await expect.poll(() => runsOf(k.name).map((r) => r.status), { timeout: 180_000 }).toEqual(['succeeded']);
      await page.locator('[data-testid="run-row"][data-status="succeeded"]').waitFor({ timeout: 60_000 });
      await page.getByTestId('run-link').first().click();
      await page.getByTestId(k.view).waitFor({ timeout: 60_000 });
      expect(await text('run-status')).toBe('succeeded');
    }, 300_000);
  }
});
