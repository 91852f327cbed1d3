/** How a spec names a model: shared by every kind's spec. */
import { z } from 'zod';
import { GeneratorRef } from './models';

/** A generator: a model-library id or server id, or a name resolved in the workspace at run time. */
export const GeneratorSelector = z.union([
  GeneratorRef,
  z.object({ model: z.string().trim().min(1).max(200) }).strict(),
  z.object({ remote: z.string().trim().min(1).max(200) }).strict(),
]);
export type GeneratorSelector = z.infer<typeof GeneratorSelector>;
