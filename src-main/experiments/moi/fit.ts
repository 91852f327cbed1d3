/**
 * MoI's aggregate step for one query (Sec. 3.1) from its stored permutation scores, with the
 * spec's solver options (core/moi/solveMoi.ts), and the fixed bias profile of a calibration run
 * (notes §2.3 (iv): cyclic and pruned sets have as many prompts as u has unknowns, so a is not
 * learnt from them; estimate a once on random-3N queries and hold it fixed).
 */
import type { MoiSpec } from '../../api/contract/moi';
import { DataError } from '../../core/errors';
import { solveMoi } from '../../core/moi/solveMoi';
import type { ExperimentsRepo } from '../../store/experimentsRepo';
import { KEY_PREFIX, type FitPayload, type PermPayload } from './items';

/** Fit one query; `perms` in set order. */
export function fitQuery(spec: Pick<MoiSpec, 'solver'>, n: number, perms: readonly PermPayload[], fixedA: number[] | null): FitPayload {
  const s = spec.solver;
  const solution = solveMoi(
    { n, permutations: perms.map((p) => p.order), scores: perms.map((p) => p.s) },
    {
      orientation: s.orientation,
      starts: s.starts,
      seed: s.seed,
      maxIterations: s.maxIterations,
      ridge: s.ridge,
      ...(s.tolerance !== undefined ? { tolerance: s.tolerance } : {}),
      ...(s.exactFit !== undefined ? { exactFit: s.exactFit } : {}),
      ...(s.polish !== undefined ? { polish: s.polish } : {}),
      ...(fixedA ? { fixedA } : {}),
    },
  );
  return {
    type: 'fit',
    a: solution.a,
    u: solution.u,
    ranking: solution.ranking,
    objective: solution.objective,
    orientation: solution.orientation,
    orientationRule: solution.orientationRule,
    underdetermined: solution.underdetermined,
    reasons: solution.identifiability.reasons,
    biasSlope: solution.biasSlope,
    retrieverTau: solution.retrieverTau,
    predictions: solution.predictions,
    converged: solution.converged,
    iterations: solution.iterations,
    fixedA,
    certificate: {
      reasons: solution.certificate.reasons,
      codes: solution.certificate.codes,
      distinctOptima: solution.certificate.distinctOptima,
      startsTried: solution.certificate.startsTried,
      bestCount: solution.certificate.bestCount,
      exactFit: solution.certificate.exactFit,
    },
    positionEffect: { detected: solution.positionEffect.detected, pValue: solution.positionEffect.pValue, method: solution.positionEffect.method },
  };
}

/** Mean a_j per position over fits with L positions (Fig. 6). */
export function meanBias(fits: Iterable<Pick<FitPayload, 'a'>>, length: number): number[] | null {
  const sum = new Array<number>(length).fill(0);
  let count = 0;
  for (const f of fits) {
    if (f.a.length !== length) continue;
    f.a.forEach((v, j) => (sum[j] = sum[j]! + v));
    count++;
  }
  return count === 0 ? null : sum.map((v) => v / count);
}

/**
 * The fixed a of a query with prompts of L positions: the spec's values, or the mean a of the
 * calibration run's fits. A calibration profile longer than L (full-length random-3N for a pruned
 * run) is cut to its first L positions and renormalised; the note says so.
 */
export function resolveFixedA(spec: Pick<MoiSpec, 'solver'>, repo: Pick<ExperimentsRepo, 'run' | 'items'>, length: number, ownRunId: number): { a: number[]; note: string } | null {
  const fixed = spec.solver.fixedA;
  if (!fixed) return null;
  if ('values' in fixed) {
    if (fixed.values.length !== length) throw new DataError(`solver.fixedA.values has ${fixed.values.length} coefficients but the prompts have ${length} positions`, { field: 'solver.fixedA.values' });
    return { a: fixed.values, note: 'a given in the spec' };
  }
  if (fixed.fromRun === ownRunId) throw new DataError('a run cannot calibrate itself', { field: 'solver.fixedA.fromRun' });
  const run = repo.run(fixed.fromRun);
  if (!run) throw new DataError(`no run with id ${fixed.fromRun}`, { field: 'solver.fixedA.fromRun' });
  if (run.kind !== 'moi') throw new DataError(`run ${fixed.fromRun} is a '${run.kind}' run, not a MoI run`, { field: 'solver.fixedA.fromRun' });
  const fits = repo
    .items(fixed.fromRun, { keyPrefix: KEY_PREFIX.fit })
    .map((it) => it.payload as FitPayload)
    .filter((f) => f.fixedA === null);
  // As in Fig. 6, a fit without a detected position effect has an a indistinguishable from uniform (any a fits it equally):
  // it carries no bias profile to calibrate with, so it is left out, and a run with none left is refused.
  const withEffect = fits.filter((f) => !f.positionEffect || f.positionEffect.detected);
  if (fits.length > 0 && withEffect.length === 0)
    throw new DataError(`run ${fixed.fromRun} detected no position effect in any of its ${fits.length} fits: its a is indistinguishable from uniform and cannot calibrate another run (use a random-3N run that shows a position effect, or give solver.fixedA.values)`, { field: 'solver.fixedA.fromRun' });
  return fixedAFrom(withEffect, fixed.fromRun, length);
}

function fixedAFrom(fits: readonly FitPayload[], fromRun: number, length: number): { a: number[]; note: string } {
  const fixed = { fromRun };
  const lengths = [...new Set(fits.map((f) => f.a.length))].sort((a, b) => b - a);
  if (lengths.includes(length)) return { a: meanBias(fits, length)!, note: `mean a of ${fits.filter((f) => f.a.length === length).length} fitted queries of run ${fixed.fromRun}` };
  const longer = lengths.find((l) => l > length);
  if (longer === undefined) throw new DataError(`run ${fixed.fromRun} has no fitted bias profile with at least ${length} positions`, { field: 'solver.fixedA.fromRun' });
  const mean = meanBias(fits, longer)!.slice(0, length);
  const total = mean.reduce((a, b) => a + b, 0);
  if (!(total > 0)) throw new DataError(`run ${fixed.fromRun}'s mean bias has no weight on the first ${length} positions`, { field: 'solver.fixedA.fromRun' });
  return { a: mean.map((v) => v / total), note: `first ${length} of ${longer} positions of run ${fixed.fromRun}'s mean a, renormalised` };
}
