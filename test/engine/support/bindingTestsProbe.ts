/**
 * Runs one `getLlama` (CPU, prebuilt binary) through withBindingTests in a fresh process and prints
 * what happened as JSON (bindingTests.test.ts). Every fork of node-llama-cpp's test script that
 * reaches child_process is counted by a wrapper installed before node-llama-cpp loads, so the count
 * does not come from the code under test. Usage: bindingTestsProbe.ts cached|always (the records
 * file from FAIRGROUND_BINDING_TESTS).
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

let realForks = 0;
const original = childProcess.fork;
const counting = function (this: unknown, ...args: unknown[]) {
  if (String(args[0]).endsWith('testBindingBinary.js')) realForks++;
  return (original as (...a: unknown[]) => childProcess.ChildProcess).apply(this, args);
} as typeof childProcess.fork;
childProcess.fork = counting;
syncBuiltinESMExports();

const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
const { bindingTestsFile, confirmSkipped, withBindingTests } = await import('../../../src-main/engine/local/worker/bindingTests');
const mode = process.argv[2] === 'always' ? 'always' : 'cached';
const file = bindingTestsFile();
const { result: llama, report } = await withBindingTests(file, mode, () => getLlama({ gpu: false, build: 'never', maxThreads: 1, logLevel: LlamaLogLevel.error }));
const confirmed = confirmSkipped(file, report, llama.gpu);
process.stdout.write(
  `${JSON.stringify({ realForks, report, confirmed, gpu: llama.gpu, buildType: llama.buildType, release: llama.llamaCppRelease.release, forkRestored: childProcess.fork === counting })}\n`,
);
await llama.dispose();
