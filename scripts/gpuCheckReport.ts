/**
 * The pure parts of `npm run gpu-check`: comparing greedy texts between two backends, and reading
 * llama.cpp's `llama-bench -o json` output (an array of test rows; a generation-only test has
 * `n_prompt` 0 and `n_gen` > 0, its mean rate in `avg_ts` and spread in `stddev_ts`).
 */

export interface GreedyParity {
  total: number;
  identical: number;
  /** Each differing text: its prompt index, the first character where the two differ, and a few characters of each from there. */
  differing: Array<{ index: number; partsAt: number; left: string; right: string }>;
}

export function compareGreedyTexts(left: readonly string[], right: readonly string[]): GreedyParity {
  if (left.length !== right.length) throw new Error(`greedy parity: ${left.length} texts on one side, ${right.length} on the other`);
  const differing: GreedyParity['differing'] = [];
  left.forEach((a, index) => {
    const b = right[index]!;
    if (a === b) return;
    let at = 0;
    while (at < a.length && at < b.length && a[at] === b[at]) at++;
    differing.push({ index, partsAt: at, left: a.slice(at, at + 24), right: b.slice(at, at + 24) });
  });
  return { total: left.length, identical: left.length - differing.length, differing };
}

export interface LlamaBenchGeneration {
  tokensPerSecond: number;
  stddev: number;
  tokens: number;
  gpuLayers: number;
  threads: number;
  backends: string;
  buildCommit: string;
}

/** The generation-only row of `llama-bench -o json` output; `source` names where the text came from, for errors. */
export function readLlamaBenchGeneration(text: string, source: string): LlamaBenchGeneration {
  let rows: unknown;
  try {
    rows = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(rows)) throw new Error(`${source}: expected an array of test rows`);
  const row = rows.find((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && (r as Record<string, unknown>).n_prompt === 0 && Number((r as Record<string, unknown>).n_gen) > 0);
  if (!row) throw new Error(`${source}: no generation-only row (n_prompt 0, n_gen > 0) among ${rows.length}`);
  const num = (field: string): number => {
    const v = row[field];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`${source}: field ${field} is ${JSON.stringify(v)}, not a number`);
    return v;
  };
  return {
    tokensPerSecond: num('avg_ts'),
    stddev: num('stddev_ts'),
    tokens: num('n_gen'),
    gpuLayers: num('n_gpu_layers'),
    threads: num('n_threads'),
    backends: typeof row.backends === 'string' ? row.backends : String(row.backends ?? '?'),
    buildCommit: typeof row.build_commit === 'string' ? row.build_commit : '?',
  };
}
