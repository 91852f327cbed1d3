/**
 * The ir_metadata (PRIMAD) view of a manifest, for the `# ir_metadata.start` header that
 * io/trec/irMetadata.ts serialises into run files. Keys follow the irgroup/ir_metadata checklist
 * (docs/metadata/{platform,implementation,method,actor,data,research_goal}.md, schema 0.1):
 *  - platform: hardware (cpu model/architecture/number of cores, gpu, ram), operating system
 *    (kernel, distribution), software (libraries per language, retrieval toolkit);
 *  - implementation: executable.cmd, source (lang, commit);
 *  - method: automatic, plus the manifest's method details; Fairground adds models (file, sha256,
 *    quantization), sampler and seeds, which the schema leaves open;
 *  - actor and research goal: only what the user entered; evaluation (reported measures,
 *    baseline, significance test with its correction method) comes from the manifest;
 *  - data: test collection (name, source, sha256, qrels) and other inputs.
 * Empty sections are left out rather than written as nulls.
 */
import type { IrMetadata } from '../trec/irMetadata';
import type { DataHash, ReproducibilityManifest } from './manifest';

const CORRECTION_NAME = { holm: 'holm', bonferroni: 'bonferroni', bh: 'benjamini-hochberg', none: 'none' } as const;

export function manifestToIrMetadata(manifest: ReproducibilityManifest, opts: { runVersion?: string | number } = {}): IrMetadata {
  const m = manifest;
  const out: IrMetadata = { 'schema-version': 0.1 };
  if (opts.runVersion !== undefined) out['run-version'] = opts.runVersion;
  if (m.run.tag) out.tag = m.run.tag;

  const javascript = [`node==${m.runtime.node}`];
  if (m.runtime.electron) javascript.push(`electron==${m.runtime.electron}`);
  if (m.runtime.chromium) javascript.push(`chromium==${m.runtime.chromium}`);
  if (m.llm.nodeLlamaCpp) javascript.push(`node-llama-cpp==${m.llm.nodeLlamaCpp}`);
  const libraries: Record<string, string[]> = { javascript };
  if (m.llm.llamaCppBuild) libraries['c++'] = [`llama.cpp==${m.llm.llamaCppBuild}`];
  const gpu = compact({ architecture: m.host.gpu ?? undefined, backend: m.llm.gpuBackend ?? undefined });
  out.platform = {
    hardware: compact({
      cpu: compact({ model: m.host.cpuModel ?? undefined, architecture: m.host.arch, 'number of cores': m.host.cpuCores }),
      gpu,
      ram: `${Math.round(m.host.memoryBytes / 2 ** 30)} GB`,
    }),
    'operating system': compact({ kernel: `${m.host.osType} ${m.host.osRelease}`, distribution: m.host.osVersion ?? undefined }),
    software: { libraries, 'retrieval toolkit': [`${m.app.name}==${m.app.version ?? 'unknown'}`] },
  };

  const evaluation = m.evaluation
    ? compact({
        'reported measures': m.evaluation.measures.length ? m.evaluation.measures : undefined,
        baseline: m.evaluation.baselines?.length ? m.evaluation.baselines : undefined,
        'significance test': m.evaluation.significance
          ? [
              compact({
                name: m.evaluation.significance.test,
                'correction method': CORRECTION_NAME[m.evaluation.significance.correction],
                alpha: m.evaluation.significance.alpha,
                permutations: m.evaluation.significance.permutations,
                seed: m.evaluation.significance.seed,
              }),
            ]
          : undefined,
      })
    : undefined;
  const researchGoal = compact({ ...(m.researchGoal ?? {}), evaluation });
  if (researchGoal) out['research goal'] = researchGoal;

  out.implementation = compact({
    executable: m.run.command ? { cmd: m.run.command } : undefined,
    source: compact({ lang: ['typescript'], commit: m.app.gitCommit ?? undefined }),
  });

  out.method = compact({
    automatic: true,
    ...(m.method ?? {}),
    models: m.llm.models.length ? m.llm.models.map((x) => compact({ role: x.role, file: x.file, sha256: x.sha256, quantization: x.quantization })) : undefined,
    sampler: m.llm.sampler ?? undefined,
    seeds: Object.keys(m.seeds).length ? m.seeds : undefined,
  });

  if (m.actor && Object.keys(m.actor).length) out.actor = m.actor;

  const collection = m.data.collection ? compact({ ...dataEntry(m.data.collection), qrels: m.data.qrels ? dataEntry(m.data.qrels) : undefined, topics: m.data.topics ? dataEntry(m.data.topics) : undefined }) : undefined;
  const other = [...(m.data.collection ? [] : [m.data.qrels, m.data.topics]), ...m.data.other].filter((x): x is DataHash => !!x).map(dataEntry);
  const data = compact({ 'test collection': collection, other: other.length ? other : undefined });
  if (data) out.data = data;
  return out;
}

function dataEntry(h: DataHash): Record<string, unknown> {
  return compact({ name: h.name, source: h.source, sha256: h.sha256 }) ?? { sha256: h.sha256 };
}

/** The object without undefined values, or undefined when nothing is left. */
function compact(obj: Record<string, unknown>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}
