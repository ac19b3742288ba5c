/**
 * Read-only lookups for Pulumi programs, one file per collection, on a shared core (`core.ts`: the
 * program's client, argument checks, the single-match rule and {@link LookupError}, the `...Output` twins).
 * See `core.ts` for the rules every lookup follows.
 */
export { AMBIGUOUS_UID_LIMIT, LookupError, programClientFromConfig, type InputArgs, type LookupFailure, type PagingArgs, type UidpFilterArgs } from "./core";
export * from "../kinds/group/lookups";
export * from "../kinds/identity/lookups";
export * from "../kinds/role/lookups";
export * from "../kinds/roleBinding/lookups";
export * from "../kinds/repo/lookups";
export * from "../kinds/tag/lookups";
export * from "../kinds/overlay/lookups";
export * from "../kinds/overlayBinding/lookups";
export * from "../kinds/subscription/lookups";
export * from "./advisories";
