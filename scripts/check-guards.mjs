// The guards CI runs before the tests (issue 37 item 1): ESLint (with the layering rule),
// the type check (tsc and svelte-check) and dependency-cruiser (import cycles, type-only ones
// included, layers, orphans: .dependency-cruiser.cjs). Runs all three even when one fails, so one
// run shows every broken guard, and ends with `N passed, N failed` counting guards (the line
// .ci/run sums). Exit status 0 only when every guard passed.
//
// The three run at once (each is mostly one process on one core): on 2 cores that took the guards
// from 63–65 s one after another to 47–48 s (measured alternately, twice each, on a quiet machine). Each guard's output is
// printed whole when it ends, in the order below, so the log reads as before.
import { spawn } from 'node:child_process';

const guards = [
  ['lint', ['npm', 'run', '--silent', 'lint']],
  ['typecheck', ['npm', 'run', '--silent', 'typecheck']],
  ['deps', ['npm', 'run', '--silent', 'check:deps']],
];

const sequential = process.argv.includes('--sequential');

function run(name, cmd, args) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.on('error', (err) => chunks.push(Buffer.from(`${err.message}\n`)));
    child.on('close', (code, signal) => resolve({ name, cmd, args, code, signal, output: Buffer.concat(chunks).toString(), seconds: ((Date.now() - started) / 1000).toFixed(1) }));
  });
}

const results = [];
if (sequential) {
  for (const [name, [cmd, ...args]] of guards) results.push(await run(name, cmd, args));
} else {
  results.push(...(await Promise.all(guards.map(([name, [cmd, ...args]]) => run(name, cmd, args)))));
}

let passed = 0;
let failed = 0;
for (const r of results) {
  console.log(`\n== guard: ${r.name} (${[r.cmd, ...r.args].join(' ')})`);
  if (r.output) process.stdout.write(r.output.endsWith('\n') ? r.output : `${r.output}\n`);
  if (r.code === 0) {
    passed += 1;
    console.log(`== guard ${r.name}: ok (${r.seconds} s)`);
  } else {
    failed += 1;
    console.log(`== guard ${r.name}: FAILED (exit ${r.code ?? r.signal}, ${r.seconds} s)`);
  }
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
