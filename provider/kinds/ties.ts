/**
 * Compile-time ties between the places a resource's fields are written (`declare.ts`, "How to declare a new
 * resource"): the declaration's `fields` are tied to `XInputs` by `ResourceDeclaration`; each kind's `XTies`
 * (in its own `<kind>/ties.ts`, with these helpers) ties `XArgs` and the class's typed outputs to `XInputs` and
 * `XOutputs`. A field added to, renamed in or removed from one of them and not the others fails `tsc` in the
 * kind's folder, naming the field.
 *
 * Types only: the file compiles to nothing (the public `.d.ts` of `XArgs` stays plain interfaces, as Pulumi's
 * template tsconfig needs).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { Drift, KnownKeys } from "../typeTies";

export type { Drift, Equal, ExpectNone, KnownKeys } from "../typeTies";
/** The keys of a resource class's `Output` properties, less the engine's own (`urn`, `id`). */
export type OutputKeys<R> = Exclude<{ [K in keyof R]-?: R[K] extends pulumi.Output<unknown> ? K : never }[keyof R] & string, "urn" | "id">;


/**
 * The keys by which `XArgs` differs from the declared fields (`XInputs`' keys), less those the program never gives
 * (`NotArgs`, e.g. a group's `deleteTimeoutSeconds`, taken from `customTimeouts`): `never` when in step.
 */
export type ArgsDrift<Args, Inputs, NotArgs extends string = never> = Drift<keyof Args & string, Exclude<KnownKeys<Inputs>, NotArgs>>;
/**
 * The keys by which the class's declared outputs differ from `XOutputs`', less `NotOutputs`: inputs read only at
 * create (`adoptUid`) or kept in state.
 */
export type OutputsDrift<R, Outputs, NotOutputs extends string = never> = Drift<OutputKeys<R>, Exclude<KnownKeys<Outputs>, NotOutputs>>;
/**
 * Every key by which a kind's public types drift from its declaration: {@link ArgsDrift} and {@link OutputsDrift}
 * together, `never` when in step. Each kind writes `export type XTies = ExpectNone<KindDrift<…> | …>` in its `ties.ts`.
 */
export type KindDrift<Args, Inputs, R, Outputs, NotArgs extends string = never, NotOutputs extends string = never> =
  | ArgsDrift<Args, Inputs, NotArgs>
  | OutputsDrift<R, Outputs, NotOutputs>;
/**
 * The declared fields a kind's wire type (`client/types.ts`, which its zod schema is tied to in `client/ties.ts`)
 * lacks, less `NotWire`: the fields the API does not return under their own name (the parent, which the uid
 * carries; create-only and write-only fields such as `adoptUid` or a client secret; sub-resources). `never` when in
 * step, so a field added to a declaration fails `tsc` until the client's wire type, and then its schema, have it.
 */
export type WireDrift<Inputs, Api, NotWire extends string = never> = Exclude<Exclude<KnownKeys<Inputs>, NotWire>, keyof Api & string>;

/**
 * A kind's test samples (`<kind>/sample.ts`): inputs under the top group `top`, given the uids made so far by kind
 * (`made`, e.g. `made["Role"][0]`), typed by the kind's Args so a renamed or retyped field fails to compile there.
 */
export type KindSample<Args> = (top: string, made: Record<string, string[]>) => Args[];
