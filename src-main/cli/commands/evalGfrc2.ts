/**
 * `fairground eval gfrc2`: GFRC2 (per user cluster and overall) and GFRC for one conversation
 * (Sakai, Tao & Song 2025), printed as one JSON object.
 */
import { gfrc, type RVariant } from '../../core/fairness/gfrc';
import { gfrc2 } from '../../core/fairness/gfrc2';
import { parseGfrcInput } from '../../io/gfrc/readGfrcInput';
import { readText } from '../../io/lines';
import { parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';
import { inputFile, jsonWithPlaces, placesOption } from './evalInputs';

const R_VARIANTS: readonly RVariant[] = ['eq6', 'eq7', 'eq9'];
const GLUED = ['exclude', 'include'] as const;

const help = `Usage: fairground eval gfrc2 --input CONV.json [--r-variant eq6|eq7|eq9] [--glued-first-word exclude|include]

Scores one conversation with GFRC2 (expected user experience over user clusters at relevant
nugget ends: GNP, per-attribute-set DistrSim, EGNP, EGF, GFRC2) and with GFRC (R, GF, their average),
following Sakai, Tao & Song, "Evaluating Group Fairness and Relevance in Conversational Search".

Options:
  -p, --places N          round every value to N decimals as printf rounds (ties to even); default: full precision
  --input FILE              JSON: {"L": 1000, "l_max": 2,
                              "attribute_sets": [{"name", "kind": "nominal|ordinal", "measure": "jsd|nmd|rnod", "target": [...]}],
                              "nuggets": [{"turn", "end", "length", "level", "groups": {"SET": [...]}}]}
                            or "conversation": [{"role": "user|system", "text", "nuggets": [{"text", "level", "groups"}]}]
                            instead of "nuggets". Optional: "gains" (per level 0..l_max),
                            "gfrc_weights": {"R", "sets": {...}}, "gfrc2_weights": {"GNP", "sets": {...}}.
  --r-variant V             GFRC's R: eq6 (default, the paper's), eq7 (FairWeb-2's), eq9
  --glued-first-word M      for "conversation" input: a nugget that starts a turn loses the word fused
                            with "S:" (exclude, default, as the official data does) or keeps it (include)

Prints {"clusters": [{"wc", "GWCrel", "WCnonrel", "GNP", "DistrSim": {...}, "Experience"}],
        "EGNP", "EGF": {...}, "GFRC2", "GFRC": {"R", "GF": {...}, "GFRC"}}.

Example:
  fairground eval gfrc2 --input r112-org.json --r-variant eq7
`;

export const evalGfrc2Command: CliCommand = {
  path: ['eval', 'gfrc2'],
  summary: 'GFRC2 and GFRC group fairness and relevance of a conversation',
  help,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      input: { type: 'string' },
      'r-variant': { type: 'string' },
      'glued-first-word': { type: 'string' },
      places: { type: 'string', short: 'p' },
    });
    const places = placesOption(values.places);
    const input = requireOption(values.input, 'input');
    const rVariant = choice(values['r-variant'], R_VARIANTS, 'r-variant') ?? 'eq6';
    const gluedFirstWord = choice(values['glued-first-word'], GLUED, 'glued-first-word') ?? 'exclude';

    const text = await inputFile(input, io.cwd, (p) => readText(p, { stdin: io.stdin }));
    const file = readInput(text, input === '-' ? '<stdin>' : input, gluedFirstWord);
    const second = gfrc2(file.input, file.gfrc2Weights ? { weights: file.gfrc2Weights } : {});
    const first = gfrc(file.input, { rVariant, ...(file.gains ? { gains: file.gains } : {}), ...(file.gfrcWeights ? { weights: file.gfrcWeights } : {}) });

    const out = {
      clusters: second.clusters.map((c) => ({
        wc: c.wc,
        GWCrel: c.GWCrel,
        WCnonrel: c.WCnonrel,
        GNP: c.GNP,
        DistrSim: c.DistrSim,
        Experience: c.Experience,
      })),
      EGNP: second.EGNP,
      EGF: second.EGF,
      GFRC2: second.GFRC2,
      GFRC: { R: first.R, GF: first.GF, GFRC: first.GFRC },
    };
    io.stdout.write(`${jsonWithPlaces(out, places, 2)}\n`);
    return 0;
  },
};

/** Errors name the file as the user wrote it, not its resolved path. */
function readInput(text: string, given: string, gluedFirstWord: (typeof GLUED)[number]) {
  return parseGfrcInput(text, given, { gluedFirstWord });
}

function choice<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`--${name}: expected one of ${allowed.join(', ')}, got '${value}'`);
  return value as T;
}
