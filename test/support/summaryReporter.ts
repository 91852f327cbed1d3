/**
 * Prints the plain closing line CI reads: `N passed, N failed` (`, N skipped` when any), counted
 * over individual tests. A test a failed hook kept from running is failed; one skipped on purpose
 * (it.skip, it.skipIf(!tool) for a missing tool, todo) is skipped.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let moduleTests = 0;
      // A file whose beforeAll (or another hook) failed leaves its tests unrun: they count as failed,
      // not skipped (issue 26 item 4). Tests skipped on purpose (it.skip, skipIf, todo) stay skipped.
      const hookFailed = mod.state() === 'failed';
      for (const test of mod.children.allTests()) {
        moduleTests++;
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else if (hookFailed && test.options.mode === 'run') failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but is a failure.
      if (moduleTests === 0 && mod.state() === 'failed') failed++;
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  }
}
