// The guards CI runs before the tests (issue 37 item 1): ESLint (with the layering rule),
// the type check (tsc and svelte-check) and dependency-cruiser (import cycles, type-only ones
// included, layers, orphans: .dependency-cruiser.cjs). Runs all three even when one fails, so one
// run shows every broken guard, and ends with `N passed, N failed` counting guards (the line
// .ci/run sums). Exit status 0 only when every guard passed.
import { spawnSync } from 'node:child_process';

const guards = [
  ['lint', ['npm', 'run', '--silent', 'lint']],
  ['typecheck', ['npm', 'run', '--silent', 'typecheck']],
  ['deps', ['npm', 'run', '--silent', 'check:deps']],
];

let passed = 0;
let failed = 0;
for (const [name, [cmd, ...args]] of guards) {
  console.log(`\n== guard: ${name} (${[cmd, ...args].join(' ')})`);
  const started = Date.now();
  const result = spawnSync(cmd, args, { stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status === 0) {
    passed += 1;
    console.log(`== guard ${name}: ok (${seconds} s)`);
  } else {
    failed += 1;
    console.log(`== guard ${name}: FAILED (exit ${result.status ?? result.signal}, ${seconds} s)`);
  }
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
