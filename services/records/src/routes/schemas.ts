import { z } from 'zod';

/** Text that must say something: not blank, bounded so huge bodies are refused early. */
export const nonBlankText = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => s.trim().length > 0);

/** An id in a JSON body: a positive safe integer (never a string or a float). */
export const bodyId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
