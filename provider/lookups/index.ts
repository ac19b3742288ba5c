/**
 * Read-only lookups for Pulumi programs, one file per collection, on a shared core (`core.ts`: the
 * program's client, argument checks, the single-match rule and {@link LookupError}, the `...Output` twins).
 * See `core.ts` for the rules every lookup follows.
 */
export { AMBIGUOUS_UID_LIMIT, LookupError, programClientFromConfig, type InputArgs, type LookupFailure, type PagingArgs, type UidpFilterArgs } from "./core";
export * from "./groups";
export * from "./identities";
export * from "./roles";
export * from "./roleBindings";
export * from "./repos";
export * from "./tags";
export * from "./overlays";
export * from "./overlayBindings";
export * from "./subscriptions";
export * from "./advisories";
