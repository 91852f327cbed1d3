/**
 * `fairground moi solve`: MoI's aggregate step for one query (Lee et al., Sec. 3.1) from a case
 * file of prompts and their listwise scores: position bias a, debiased utility u, the ranking by u.
 */
import { DataError } from '../../core/errors';
import { MOI_SOLVE_DEFAULTS, solveMoi } from '../../core/moi/solveMoi';
import { parseMoiCase } from '../../io/moi/readMoiCase';
import { readText } from '../../io/lines';
import { parseCliArgs, requireOption } from '../args';
import type { CliCommand } from '../command';
import { inputFile, jsonWithPlaces, placesOption } from './evalInputs';

const help = `Usage: fairground moi solve --input CASE.json

Estimates MoI's position bias a and debiased passage utility u for one query (Lee et al., "Inference
Scaling for Bridging Retrieval and Augmented Generation", Sec. 3.1):
  minimise sum_i (sum_j a_j u[perm_i[j]] - s_i)^2  s.t. sum_j a_j = 1, 0 <= a_j <= 1
by multi-start alternating least squares (exact simplex QP for a, ridge least squares for u), and
ranks the passages by u, descending.

Options:
  -p, --places N round every value to N decimals as printf rounds (ties to even); default: full precision
  --input FILE   JSON: {"n": N,
                        "permutations": [[passage indices 0..N-1 in prompt order], ...],
                        "scores": [s_1, ...],            one per permutation, log domain (Eq. 3)
                        "options": {...}}                optional
                 Passages are numbered in retriever order (0 = the retriever's best). Prompts shorter
                 than N are pruned prefixes and must all have the same length L.
                 options:
                   orientation    bias-non-increasing (default) | retriever-agreement | none:
                                  resolves the mirror ambiguity of full-length prompts (same
                                  objective, reversed ranking)
                   seed           seed of the random starts beyond the first four (default ${MOI_SOLVE_DEFAULTS.seed})
                   starts         ALS starts (default ${MOI_SOLVE_DEFAULTS.starts}; never the uniform a)
                   maxStarts      seeded random starts are added until two random ones agree (after 12)
                                  or this many starts ran (default ${MOI_SOLVE_DEFAULTS.maxStarts})
                   lowSignalStarts at low signal — noise variance (residual/(M − params), or noiseSd²)
                                  above 5% of the scores' variance, or fewer residual degrees of
                                  freedom than passages — all these starts run (default
                                  ${MOI_SOLVE_DEFAULTS.lowSignalStarts}, at least maxStarts): agreement is no evidence there
                   noiseSd        sd of the noise on s when known (simulated reader): decides low signal,
                                  and certifies only fits within σ²·χ²₀.₉₉₉(M − params)
                   maxIterations  ALS sweeps per start (default ${MOI_SOLVE_DEFAULTS.maxIterations})
                   tolerance      relative objective change that stops ALS (default ${MOI_SOLVE_DEFAULTS.tolerance})
                   exactFit       ALS also stops once f <= exactFit * |s|^2 (default ${MOI_SOLVE_DEFAULTS.exactFit})
                   polish         end each start with joint Gauss-Newton steps on (a, u): same
                                  objective, exact fits found to rounding (default ${MOI_SOLVE_DEFAULTS.polish})
                   fixedA         bias profile [a_1..a_L] from a calibration run: solve only u
                                  (the fix for cyclic and pruned sets)
                   ridge          u-step ridge factor r, rho = r * tr(X'X) / N (default ${MOI_SOLVE_DEFAULTS.ridge}; 0 = none)

Prints one JSON line:
  {"u": [...], "a": [...], "ranking": [...], "objective": x, "orientation": "...", "underdetermined": bool,
   "orientationRule", "orientationByRule", "biasSlope", "retrieverTau", "iterations", "converged",
   "certificate", "positionEffect", "bestStart", "starts", "identifiability", "predictions"}
converged: the fit is certified — an exact fit, or an optimum reached by at least two random starts
(after 12; at low signal after all lowSignalStarts, certificate.lowSignal true), by a start that met its
stopping rule, and (with noiseSd) within the noise bound; otherwise
false, with certificate.reasons (iteration cap, restarts disagree, residual above noise) and
certificate.distinctOptima, also on stderr. positionEffect.detected false: "no position effect
detected" (a indistinguishable from uniform; F-test screen, bootstrap in between), on stderr.
orientation: kept | mirrored (full-length prompts, the rule decided) | identified (pruned prompts:
no mirror exists) | fixed (fixedA given) | degenerate (a uniform). With kept/mirrored,
orientationByRule is true: the data fit the curve and its mirror equally, the rule chose
(prefix-pruned prompts identify it). Why a result is underdetermined is also noted on stderr.

Example:
  fairground moi solve --input query-17.json
`;

export const moiSolveCommand: CliCommand = {
  path: ['moi', 'solve'],
  summary: 'MoI position bias and debiased passage utility from permutation scores',
  help,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { input: { type: 'string' }, places: { type: 'string', short: 'p' } });
    const input = requireOption(values.input, 'input');
    const text = await inputFile(input, io.cwd, (p) => readText(p, { stdin: io.stdin }));
    const { problem, options } = parseMoiCase(text, input === '-' ? '<stdin>' : input);
    const result = inFile(input, () => solveMoi(problem, options));
    const out = {
      u: result.u,
      a: result.a,
      ranking: result.ranking,
      objective: result.objective,
      orientation: result.orientation,
      underdetermined: result.underdetermined,
      orientationRule: result.orientationRule,
      orientationByRule: result.orientation === 'kept' || result.orientation === 'mirrored',
      biasSlope: result.biasSlope,
      retrieverTau: result.retrieverTau,
      iterations: result.iterations,
      converged: result.converged,
      certificate: result.certificate,
      positionEffect: result.positionEffect,
      bestStart: result.bestStart,
      starts: result.starts,
      identifiability: result.identifiability,
      predictions: result.predictions,
    };
    for (const reason of result.identifiability.reasons) io.stderr.write(`note: underdetermined: ${reason}\n`);
    for (const reason of result.certificate.reasons) io.stderr.write(`warning: fit not certified: ${reason}\n`);
    if (!result.positionEffect.detected) io.stderr.write(`note: no position effect detected (a indistinguishable from uniform${result.positionEffect.pValue === null ? '' : `, p = ${result.positionEffect.pValue.toPrecision(3)}`}): the curve is not a finding\n`);
    io.stdout.write(`${jsonWithPlaces(out, placesOption(values.places))}\n`);
    return 0;
  },
};

/** Option errors from core name the field; place them in the file as the user wrote it. */
function inFile<T>(given: string, run: () => T): T {
  try {
    return run();
  } catch (err) {
    throw err instanceof DataError ? err.inFile(given) : err;
  }
}
