/**
 * Whole `node` processes with their own peak resident set (VmHWM) and CPU time, for the memory
 * rows of issue 25 item 3 (sampler, importers). VmHWM, not getrusage's maxRSS: on Linux that one
 * keeps the peak of the image before exec, i.e. of the forked copy of the bench process.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PeakRun {
  stdout: string;
  /** Peak resident set, MiB. */
  peakMiB: number;
  /** user + system CPU, ms. */
  cpuMs: number;
}

/** Writes the exit hook that reports the peak and the CPU time; returns its path. */
export function writePeakPreload(dir: string): string {
  const preload = join(dir, 'peak.cjs');
  writeFileSync(
    preload,
    "const { readFileSync } = require('node:fs');\n" +
      "process.on('exit', () => { const u = process.resourceUsage(); let kib = u.maxRSS; try { kib = Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]); } catch {} process.stderr.write(`peak=${kib} cpu=${(u.userCPUTime + u.systemCPUTime) / 1000}\\n`); });\n",
  );
  return preload;
}

export function peakProcess(args: string[], preload: string, cwd: string, env: Record<string, string> = {}): Promise<PeakRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', preload, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const m = /peak=(\d+) cpu=([\d.]+)/.exec(err);
      if (code !== 0 || !m) reject(new Error(`${args.join(' ')} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
      else resolve({ stdout: out, peakMiB: Number(m[1]) / 1024, cpuMs: Number(m[2]) });
    });
  });
}
