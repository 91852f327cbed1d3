import { z } from 'zod';
import { EngineError } from '../types';

/**
 * The parts of OpenAI-compatible responses the remote engine reads. Unknown fields are ignored
 * (servers add their own); a missing required field is a `remote-error` naming the endpoint.
 */

const usage = z.object({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative().optional(),
});

export const completionLogprobsSchema = z.object({
  tokens: z.array(z.string()),
  token_logprobs: z.array(z.number().nullable()),
  text_offset: z.array(z.number().int()),
});

export const completionResponse = z.object({
  choices: z
    .array(
      z.object({
        text: z.string(),
        // Servers that cannot return logprobs send null or leave it out.
        logprobs: z.unknown().optional(),
        finish_reason: z.string().nullable().optional(),
        // vLLM: the stop string or token id that ended generation, null for EOS.
        stop_reason: z.union([z.string(), z.number()]).nullable().optional(),
      }),
    )
    .min(1),
  usage: usage.optional(),
});

export const chatCompletionResponse = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
        stop_reason: z.union([z.string(), z.number()]).nullable().optional(),
      }),
    )
    .min(1),
  usage: usage.optional(),
});

export const embeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
});

export const modelsResponse = z.object({
  data: z.array(
    z.looseObject({
      id: z.string(),
      created: z.number().optional(),
      owned_by: z.string().optional(),
    }),
  ),
});

export function parseResponse<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'unexpected shape';
    throw new EngineError('remote-error', `${where}: unexpected response: ${at}`);
  }
  return parsed.data;
}
