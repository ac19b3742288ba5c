/**
 * What the two generators from the kinds' zod types share (`package.ts`, the Pulumi package schema, and
 * `typescript.ts`, the kinds' `types.ts`): the JSON schema zod gives of a field's type, and whether a program may
 * leave the field out.
 */
import { z } from "zod";

/** The part of a JSON schema (as `z.toJSONSchema` writes it) the generators read. */
export type JsonSchema = {
  type?: string;
  description?: string;
  $ref?: string;
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  $defs?: Record<string, JsonSchema>;
};

/**
 * The JSON schema of `t`, its named types under `$defs`; what JSON schema cannot say is `{}` (any). `io`: the
 * input side (default: what a program gives) or the output side (what a parse gives: a field with a default is
 * always there).
 */
export function jsonSchemaOf(t: z.ZodType, io: "input" | "output" = "input"): JsonSchema {
  return z.toJSONSchema(t, { io, unrepresentable: "any" }) as JsonSchema;
}

/** Whether a program may leave a field of type `t` out (`undefined` passes it). */
export function optional(t: z.ZodType): boolean {
  return t.safeParse(undefined).success;
}
