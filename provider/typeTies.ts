/**
 * Compile-time comparisons of types, for the files that tie two declarations of one shape together
 * (`client/ties.ts`: wire types and zod schemas; `kinds/ties.ts`: a kind's Args, Inputs, Outputs and class).
 * Types only: this module compiles to nothing. It sits below both, so neither imports the other.
 */

/** `true` when `A` and `B` are the same type (mutual assignability is too weak: this compares them exactly). */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The named keys of `T` (an index signature such as `[serverField: string]: unknown` left out). */
export type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] } & string;
/** Compiles only when `T` is `never`; otherwise the error names the keys in `T`. */
export type ExpectNone<T extends never> = T;
/** The keys in one of `A`, `B` and not the other. */
export type Drift<A, B> = Exclude<A, B> | Exclude<B, A>;
