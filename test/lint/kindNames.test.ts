/**
 * Issue 37 item 2: a kind is one folder per side. No file outside a kind's folders names a kind (a
 * string literal 'fair-rag', 'moi' or 'richrag') or imports a kind's internals; what generic code needs
 * of a kind is a member of its registry entry (src-main/experiments/registry.ts, the renderer's
 * KindUi). The exceptions below are the registry lines themselves and places that name a kind for a
 * reason of their own, each with that reason; a stale exception fails too.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = join(__dirname, '..', '..');
const KIND_FOLDERS = [/^src-main\/experiments\/(fair-rag|moi|richrag)\//, /^src-renderer\/src\/screens\/experiments\/(fair-rag|moi|richrag)\//, /^src-main\/api\/contract\/(fairRag|moi|richrag)\.ts$/];

/** file → why it may name a kind. */
const EXCEPTIONS: Record<string, string> = {
  'src-main/experiments/kinds.ts': 'the registry lines of the main side',
  'src-renderer/src/screens/experiments/kinds.ts': 'the registry line of the renderer side (imports each kind’s KindUi)',
  'src-main/api/contract/index.ts': "the contract's index: one re-export line per kind's contract file",
  'src-main/api/contract/runs.ts': 'the contract’s unions over the kinds’ results (one entry per kind)',
  'src-main/store/migrations/0006_experiments.ts': 'a migration’s SQL comment: migrations are never edited',
  'src-main/cli/commands/index.ts': "the public commands `moi solve` and `richrag coverage` (methods of the papers, not experiment kinds)",
  'src-main/cli/commands/moiSolve.ts': 'the public command `moi solve`',
  'src-main/cli/commands/richragCoverage.ts': 'the public command `richrag coverage`',
  'src-main/core/prompts/defaultTemplates.ts': "provenance names of Fair RAG's LaMP templates stored in results ('fair-rag/LaMP-2')",
  'src-main/services/conversations/fairRagAnswers.ts': "conversations from a Fair RAG run's answers (GFRC over Fair RAG's output: a bridge between two studies)",
  'src-renderer/src/screens/conversations/FromRunForm.svelte': 'the same bridge on screen: it lists Fair RAG runs',
};

function files(dir: string): string[] {
  return readdirSync(join(repo, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(repo, path)).isDirectory() ? files(path) : /\.(ts|svelte)$/.test(name) ? [path] : [];
  });
}

const NAMES = /['"`](fair-rag|moi|richrag)['"`/]|experiments\/(fair-rag|moi|richrag)\/|from '\.\/(fair-rag|moi|richrag)['/]/;

function offenders(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of [...files('src-main'), ...files('src-renderer/src')].map((f) => relative(repo, join(repo, f)))) {
    if (KIND_FOLDERS.some((r) => r.test(file))) continue;
    const lines = readFileSync(join(repo, file), 'utf8')
      .split('\n')
      .map((l, i) => [l, i + 1] as const)
      .filter(([l]) => NAMES.test(l) && !/^\s*(\*|\/\/)/.test(l));
    if (lines.length) out.set(file, lines.map(([l, n]) => `${file}:${n}: ${l.trim().slice(0, 120)}`));
  }
  return out;
}

describe('a kind is one folder per side', () => {
  const found = offenders();

  it('no file outside the kinds’ folders names a kind, but the registry lines and the stated exceptions', () => {
    const unexpected = [...found].filter(([file]) => !(file in EXCEPTIONS)).flatMap(([, lines]) => lines);
    expect(unexpected, 'move what this needs of a kind into a member of the kind’s registry entry').toEqual([]);
  });

  it('every exception still names a kind (a stale one would hide a new offender)', () => {
    for (const file of Object.keys(EXCEPTIONS)) expect(found.has(file), file).toBe(true);
  });

  it('the check finds a kind name where one is written', () => {
    expect(NAMES.test("if (spec.kind !== 'fair-rag') return")).toBe(true);
    expect(NAMES.test("import { x } from '../experiments/moi/execute'")).toBe(true);
    expect(NAMES.test("const kind = 'moire'")).toBe(false);
  });
});
