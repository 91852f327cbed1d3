/**
 * The GBNF grammar the local engine decodes a JSON schema with, for engines that take a grammar
 * (llama.cpp's `llama-server`, issue 24 item 2).
 *
 * The local engine constrains a JSON schema with node-llama-cpp's `createGrammarForJsonSchema`,
 * which converts the schema to GBNF with its own converter (`getGbnfGrammarForGbnfJsonSchema`),
 * stops when the grammar's closing "\n\n\n\n" is generated and trims the answer's trailing
 * whitespace. llama.cpp's server converts a `json_schema` with another converter (it allows other
 * whitespace, e.g. a space before `:`), so the same GGUF wrote other JSON there: 0 of 523 greedy
 * schema calls were identical. Sending this grammar, the stop and the trim reproduces the local
 * decoding exactly.
 *
 * node-llama-cpp does not export its converter; it is loaded from the installed package's own file
 * (pure JavaScript, no native binding), so the grammar is the one the installed version builds.
 * test/engine/local/jsonSchemaGrammar.test.ts checks it against `createGrammarForJsonSchema`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EngineError } from '../types';

/** The stop node-llama-cpp's JSON-schema grammar ends with (its `stopGenerationTriggers`). */
export const JSON_SCHEMA_GRAMMAR_STOP = '\n\n\n\n';

type Converter = (schema: unknown) => string;
let converter: Converter | undefined;

function loadConverter(): Converter {
  if (converter) return converter;
  const require = createRequire(import.meta.url);
  const entry = require.resolve('node-llama-cpp');
  const file = join(dirname(entry), 'utils', 'gbnfJson', 'getGbnfGrammarForGbnfJsonSchema.js');
  let loaded: { getGbnfGrammarForGbnfJsonSchema?: unknown };
  try {
    loaded = require(file) as typeof loaded;
  } catch (error) {
    throw new EngineError('unsupported', `cannot load node-llama-cpp's JSON-schema grammar converter (${file}): ${(error as Error).message}`);
  }
  if (typeof loaded.getGbnfGrammarForGbnfJsonSchema !== 'function') {
    throw new EngineError('unsupported', `node-llama-cpp's ${file} has no getGbnfGrammarForGbnfJsonSchema: this node-llama-cpp version is not supported for sending JSON schemas as grammars`);
  }
  converter = loaded.getGbnfGrammarForGbnfJsonSchema as Converter;
  return converter;
}

/** The GBNF text node-llama-cpp's `createGrammarForJsonSchema(schema)` decodes with. */
export function jsonSchemaGbnf(schema: Record<string, unknown>): string {
  try {
    return loadConverter()(schema);
  } catch (error) {
    if (error instanceof EngineError) throw error;
    throw new EngineError('bad-request', `invalid JSON schema: ${(error as Error).message}`);
  }
}
