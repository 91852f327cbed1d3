/**
 * `fairground richrag coverage`: RichRAG's greedy coverage silver list of a candidate pool (Eq. 8-9),
 * its total gain COM*, and — for a given ranking — COM and NCOM (App. C), printed as one JSON object.
 */
import { coverageMatrix, PHI_PRESET_NAMES } from '../../core/richrag/coverage';
import { GAIN_PRESET_NAMES } from '../../core/richrag/coverageGain';
import { ncom, silverList } from '../../core/richrag/silverList';
import { parseCoverageInput } from '../../io/richrag/readCoverageInput';
import { readText } from '../../io/lines';
import { parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';
import { inputFile, jsonWithPlaces, placesOption } from './evalInputs';

const help = `Usage: fairground richrag coverage --input POOL.json [--phi code|paper] [--weights code|paper]

Builds RichRAG's silver list: k times, the pool document with the largest marginal gain in coverage
of the sub-answers given the documents already chosen (ties: the earlier document in "docs"). With a
ranking it also scores the ranking's comprehensiveness COM over its first k documents and
NCOM = COM / COM* (Wang et al., RichRAG, Eq. 8-9 and App. C). ROUGE is pltrdy rouge 1.0.1's.

Options:
  -p, --places N round every value to N decimals as printf rounds (ties to even); default: full precision
  --input FILE     JSON: {"subanswers": ["..."], "docs": [{"id", "text", "title"?, "section"?}],
                   "k": 10, "ranking": ["id", ...]}   ("ranking" optional; a title makes the scored
                   text "{title} {text}", a section "{title}: {section} {text}")
  --phi P          coverage of a sub-answer by a document, pltrdy recall with the document as hypothesis:
                   code (default, the released code): max of ROUGE-1, ROUGE-2, ROUGE-L;
                   paper (App. C): mean of ROUGE-2 and ROUGE-L
  --weights W      sub-answer weights from the coverage c so far:
                   code (default): w_i = (1 - c_i) / sum_j (1 - c_j), coverage reset to 0 once every
                   sub-answer is at its pool maximum;
                   paper (Eq. 9 as printed): w_i = 1 - c_i / sum_j c_j, no reset

Prints {"silver": [ids], "com_star": x} and, when the input has a ranking, also "com" and "ncom".
Without a ranking those two keys are absent. "ncom" is null when com_star is 0 (no document shares
anything with any sub-answer). The silver list has min(k, number of docs) ids.

Example:
  fairground richrag coverage --input pool.json --phi paper
`;

export const richragCoverageCommand: CliCommand = {
  path: ['richrag', 'coverage'],
  summary: 'RichRAG coverage silver list, COM* and a ranking\'s COM/NCOM',
  help,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      places: { type: 'string', short: 'p' },
      input: { type: 'string' },
      phi: { type: 'string' },
      weights: { type: 'string' },
    });
    const input = requireOption(values.input, 'input');
    const phiPreset = choice(values.phi, PHI_PRESET_NAMES, 'phi') ?? 'code';
    const weights = choice(values.weights, GAIN_PRESET_NAMES, 'weights') ?? 'code';

    const text = await inputFile(input, io.cwd, (p) => readText(p, { stdin: io.stdin }));
    const pool = parseCoverageInput(text, input === '-' ? '<stdin>' : input);
    const phi = coverageMatrix(pool.subAnswers, pool.texts, phiPreset);
    let out: { silver: string[]; com_star: number; com?: number; ncom?: number | null };
    if (pool.ranking === undefined) {
      const silver = silverList(phi, pool.k, weights);
      out = { silver: silver.order.map((d) => pool.ids[d]!), com_star: silver.comStar };
    } else {
      const r = ncom(phi, pool.ranking, pool.k, weights);
      out = { silver: r.silver.order.map((d) => pool.ids[d]!), com_star: r.silver.comStar, com: r.com, ncom: r.ncom };
    }
    io.stdout.write(`${jsonWithPlaces(out, placesOption(values.places), 2)}\n`);
    return 0;
  },
};

/** Errors name the file as the user wrote it, not its resolved path. */
function choice<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`--${name}: expected one of ${allowed.join(', ')}, got '${value}'`);
  return value as T;
}
