/**
 * Issue 26 item 1: the README's commands are run as tests on the demo data. Every `npx fairground …`
 * command of README.md (fenced `sh` blocks and complete inline commands, read from the README at
 * test time) runs, in README order, in one scratch folder beside a link to resources/, unless it is
 * listed below with the reason it cannot run here (a downloaded model, a GPU server, the user's own
 * spec). A new README command therefore runs by default; an exemption that no longer matches a
 * README command fails too. The other commands of a block that runs (gzip) run with it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedCommands, isFairgroundCommand, linkedDocs, type ReadmeCommand } from './readmeCommands';

const repo = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(repo, file), 'utf8');
const readme = read('README.md');

/** README commands that cannot run on the demo data here, and why (matched as a substring). */
const EXEMPT: { match: string; why: string }[] = [
  { match: 'npx fairground serve --port 8123', why: 'serves until stopped (test/server and test/cli cover serve)' },
  { match: 'npx fairground model add ~/models/', why: 'needs a downloaded 7B GGUF' },
  { match: 'npx fairground model try ~/models/', why: 'needs a downloaded 7B GGUF' },
  { match: 'npx fairground remote add llama8b', why: 'needs vLLM servers gpu1/gpu2' },
  { match: 'npx fairground remote endpoints llama8b', why: 'needs vLLM servers gpu1/gpu3' },
  { match: 'npx fairground plan export study.yaml', why: "the user's own spec (test/cli/batchPlans* run plan export on the demo)" },
  { match: 'npx fairground cache import results.jsonl', why: 'needs the results of vllm run-batch on a GPU machine' },
  { match: 'npx fairground run study.yaml --cache-only', why: "the user's own spec, after cache import" },
];

interface Ran {
  command: ReadmeCommand;
  status: number | null;
  stdout: string;
  stderr: string;
}

const commands = documentedCommands(read);
const exempt = (c: ReadmeCommand) => EXEMPT.some((e) => c.text.includes(e.match));
/** Blocks with at least one fairground command that runs: their other commands run too. */
const runBlocks = new Set(commands.filter((c) => c.block >= 0 && isFairgroundCommand(c) && !exempt(c)).map((c) => c.block));
const toRun = commands.filter((c) => (isFairgroundCommand(c) ? !exempt(c) : runBlocks.has(c.block)));

let dir: string;
const ran: Ran[] = [];

function output(fragment: string): Ran {
  const r = ran.find((x) => x.command.text.includes(fragment));
  if (!r) throw new Error(`no README command containing '${fragment}' was run`);
  return r;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fairground-readme-'));
  symlinkSync(path.join(repo, 'resources'), path.join(dir, 'resources'));
  // `npx fairground` is this checkout's launcher; any other npx use in a README block fails loudly.
  const prelude = `npx() { if [ "$1" = fairground ]; then shift; node ${JSON.stringify(path.join(repo, 'bin', 'fairground.js'))} "$@"; else echo "README test: 'npx $1' is not run here" >&2; return 127; fi; }\n`;
  const env = {
    ...process.env,
    HOME: dir,
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    FAIRGROUND_WORKSPACE: path.join(dir, 'default.fairground'),
  };
  for (const command of toRun) {
    const r = spawnSync('bash', ['-o', 'pipefail', '-c', prelude + command.text], { cwd: dir, env, encoding: 'utf8', timeout: 240_000 });
    ran.push({ command, status: r.status, stdout: r.stdout, stderr: r.stderr });
    if (r.status !== 0) break; // later commands build on this one
  }
}, 600_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README and the docs it links', () => {
  const markdownFiles = ['README.md', ...readdirSync(path.join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

  it('the README guides: at most 300 lines, and it links every page of docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(new Set(linkedDocs(readme))).toEqual(new Set(markdownFiles.filter((f) => f.startsWith('docs/'))));
  });

  it('every relative link resolves, and nothing points outside the repository', () => {
    for (const file of markdownFiles) {
      const text = read(file);
      expect(text, file).not.toMatch(/\.\.\/shared\//);
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/.test(target)) continue;
        const resolved = path.resolve(path.dirname(path.join(repo, file)), target);
        expect(resolved.startsWith(repo + path.sep), `${file}: ${m[1]} leaves the repository`).toBe(true);
        expect(existsSync(resolved), `${file}: ${m[1]} does not exist`).toBe(true);
      }
    }
  });
});

describe('README examples on the demo data', () => {
  it('the README is read: the demo walkthrough and the workspace commands are among the commands run', () => {
    expect(toRun.filter(isFairgroundCommand).length).toBeGreaterThanOrEqual(15);
    expect(toRun.some((c) => c.text.includes('--method dense --model "Simulated reader (lost in the middle)"'))).toBe(true);
    expect(toRun.some((c) => c.text.startsWith('npx fairground workspace check'))).toBe(true);
    expect(toRun.some((c) => c.block === -1 && c.text === 'npx fairground run resources/demo/experiments/fair-rag.json')).toBe(true);
  });

  it('every exemption still names a README command (a stale one would hide a new command)', () => {
    for (const e of EXEMPT) expect(commands.some((c) => c.text.includes(e.match)), e.match).toBe(true);
  });

  it('every command that runs exits 0', () => {
    for (const r of ran) {
      expect(r.status, `${r.command.file}:${r.command.line}: ${r.command.text}\n${r.stderr.slice(-2000)}`).toBe(0);
    }
    expect(ran.length).toBe(toRun.length);
  });

  it('their outputs are what the README says they are', () => {
    // The inline run used the default workspace ($FAIRGROUND_WORKSPACE), the walkthrough lab.fairground.
    expect(existsSync(path.join(dir, 'default.fairground'))).toBe(true);
    expect(output('npx fairground run resources/demo/experiments/fair-rag.json --workspace').stdout).toMatch(/^oracle\s+8\s/m);

    // Dense retrieval with the simulated reader's embeddings: a six-column run of all 12 demo queries.
    const dense = readFileSync(path.join(dir, 'dense.run'), 'utf8').trim().split('\n');
    expect(new Set(dense.map((l) => l.split(' ')[0])).size).toBe(12);
    for (const l of dense) expect(l.split(' ')).toHaveLength(6);
    expect(dense[0]).toMatch(/^\S+ Q0 \S+ 1 \S+ dense$/);
    expect(readFileSync(path.join(dir, 'dense.run.ir_metadata.yaml'), 'utf8')).toContain('Simulated reader (lost in the middle)');

    // eval ir -q on the demo's relevance qrels: the four multi-aspect queries, three measures each, and the means.
    const ir = output("-m 'P(rel=2)@5' -q").stdout.trim().split('\n');
    expect(ir.filter((l) => l.startsWith('nDCG@10\tma-q')).length).toBe(4);
    expect(ir.filter((l) => /\tall\t/.test(l)).map((l) => l.split('\t')[0])).toEqual(['nDCG@10', 'AP', 'P(rel=2)@5']);

    // eval exposure --judged-only: the 8 labelled queries are evaluated, the 4 others named on stderr.
    const ee = output('eval exposure --run bm25.alpha2.run');
    expect(ee.stderr).toContain('4 run queries are not in the qrels and left out (--judged-only): ma-q1, ma-q2, ma-q3, ma-q4');
    const eeAll = Object.fromEntries(
      ee.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t'))
        .map(([m, , v]) => [m, Number(v)]),
    );
    expect(Object.keys(eeAll)).toEqual(['EE-D', 'EE-R', 'EE-L', 'EE-D_norm', 'EE-R_norm', 'EE-L_norm']);
    // k = 2: EE-D = ||eps||^2 lies in (k^2/n, k] for n = 4..5 candidates, and EE-D_norm = EE-D / k.
    expect(eeAll['EE-D']).toBeGreaterThan(0.8);
    expect(eeAll['EE-D']).toBeLessThan(2);
    expect(eeAll['EE-D_norm']).toBeCloseTo(eeAll['EE-D']! / 2, 5);

    // stats compare -m over a pipe: paired on the 4 judged queries.
    const stats = JSON.parse(output('| npx fairground stats compare').stdout) as { n: number; test: string; paired: boolean };
    expect(stats).toMatchObject({ n: 4, paired: true });
    expect(stats.test).toMatch(/randomization/);

    expect(output('eval compare --qrels').stdout).toContain('\\begin{tabular');
  });
});
