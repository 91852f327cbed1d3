/**
 * Reads a GFRC/GFRC2 input file into core's `GfrcInput`, reporting every problem as a DataError that
 * names the file and the field path as written in the file.
 */
import { DataError } from '../../core/errors';
import { nuggetsFromConversation, type ConversationNuggetOptions } from '../../core/fairness/conversationNuggets';
import { gainTable } from '../../core/fairness/gains';
import { formatFieldPath, gfrcInputProblems, type FieldPath, type GfrcInput } from '../../core/fairness/gfrcInput';
import { checkWeights, type ComponentWeights } from '../../core/fairness/weights';
import { gfrcInputFileSchema, type GfrcInputFile } from './inputSchema';
import { parseJsonText } from '../jsonText';

export interface GfrcInputFromFile {
  input: GfrcInput;
  gains?: number[];
  gfrcWeights?: ComponentWeights;
  gfrc2Weights?: ComponentWeights;
}

export function parseGfrcInput(text: string, file: string, options: ConversationNuggetOptions = {}): GfrcInputFromFile {
  const json = parseJsonText(text, file);
  const parsed = gfrcInputFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = formatFieldPath(issue.path.filter((p): p is string | number => typeof p !== 'symbol'));
    throw new DataError(issue.message, { file, field: field || undefined });
  }
  const data = parsed.data;
  try {
    return toCoreInput(data, options);
  } catch (err) {
    throw err instanceof DataError ? err.inFile(file) : err;
  }
}

function toCoreInput(data: GfrcInputFile, options: ConversationNuggetOptions): GfrcInputFromFile {
  const attributeSets = data.attribute_sets.map((s) => ({ ...s, measure: s.measure ?? (s.kind === 'nominal' ? ('jsd' as const) : ('rnod' as const)) }));
  let nuggets: GfrcInput['nuggets'];
  let nuggetPath: (k: number, rest: FieldPath) => FieldPath = (k, rest) => ['nuggets', k, ...rest];
  if (data.conversation !== undefined) {
    const positioned = nuggetsFromConversation(data.conversation, options);
    nuggets = positioned.nuggets;
    // A derived nugget's position comes from its text, so position problems point at the text.
    nuggetPath = (k, rest) => {
      const { turnIndex, nuggetIndex } = positioned.origins[k]!;
      const tail = rest.length === 0 || rest[0] === 'end' || rest[0] === 'length' || rest[0] === 'turn' ? ['text'] : rest;
      return ['conversation', turnIndex, 'nuggets', nuggetIndex, ...tail];
    };
  } else {
    nuggets = (data.nuggets ?? []).map((n) => ({ ...n, groups: n.groups ?? {} }));
  }
  const input: GfrcInput = { L: data.L, l_max: data.l_max, attributeSets, nuggets };

  const [problem] = gfrcInputProblems(input);
  if (problem) {
    const [head, index, ...rest] = problem.path;
    const path: FieldPath =
      head === 'attributeSets' ? ['attribute_sets', ...problem.path.slice(1)] : head === 'nuggets' ? nuggetPath(index as number, rest) : problem.path;
    throw new DataError(problem.message, { field: formatFieldPath(path) });
  }

  const out: GfrcInputFromFile = { input };
  if (data.gains !== undefined) out.gains = gainTable(data.l_max, data.gains);
  if (data.gfrc_weights !== undefined) {
    out.gfrcWeights = { main: data.gfrc_weights.R, sets: data.gfrc_weights.sets };
    checkWeights(out.gfrcWeights, attributeSets, 'gfrc_weights', 'R');
  }
  if (data.gfrc2_weights !== undefined) {
    out.gfrc2Weights = { main: data.gfrc2_weights.GNP, sets: data.gfrc2_weights.sets };
    checkWeights(out.gfrc2Weights, attributeSets, 'gfrc2_weights', 'GNP');
  }
  return out;
}

