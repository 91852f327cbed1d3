/**
 * Issue 37 item 3: no dead exports in src-main. An exported name that no other file imports
 * (test/lint/deadExports.ts: src-main, the renderer, the tests and the scripts are searched) is
 * dead code or a local helper; remove it, or drop `export`. Exports that only the file itself uses
 * are not counted here (their `export` is superfluous, not dead). The allowlist names exports used
 * in a way the finder cannot see, each with the reason; a stale entry fails too.
 */
import { describe, expect, it } from 'vitest';
import { findDeadExports } from './deadExports';

const ALLOWED: Record<string, string> = {
  'src-main/cli/main.ts main': 'the CLI entry point: bin/fairground.js imports it by a computed path',
};

describe('dead exports', () => {
  const found = findDeadExports();
  const unused = found.filter((d) => !d.usedLocally);
  const keys = unused.map((d) => `${d.file} ${d.name}`);

  it('no export of src-main is unused everywhere (outside the allowlist)', () => {
    const offenders = unused.filter((d) => !(`${d.file} ${d.name}` in ALLOWED)).map((d) => `${d.file}:${d.line} ${d.name}`);
    expect(offenders, `remove these exports (or use them), or allow one with its reason in ${'test/lint/deadExports.test.ts'}`).toEqual([]);
  });

  it('every allowlist entry is still needed', () => {
    expect(Object.keys(ALLOWED).filter((k) => !keys.includes(k))).toEqual([]);
  });

  it('the finder follows re-exports and lazy imports, and sees an export nothing imports', () => {
    // Names used only through `export * from` (the $contract index) or `import('…').then((m) => m.x)` (the CLI's lazy
    // commands) must not be reported; the CLI's entry point, which no file imports, must be.
    const all = found.map((d) => `${d.file} ${d.name}`);
    expect(all).not.toContain('src-main/api/contract/fairRag.ts FairRagSpec');
    expect(all).not.toContain('src-main/cli/commands/sample.ts sampleCommand');
    expect(all).toContain('src-main/cli/main.ts main');
  });
});
