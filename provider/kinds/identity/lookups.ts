/**
 * Identity lookups: `getIdentities`, `getIdentity` and their `...Output` twins (see `core.ts`).
 */
import type { ApiIdentity as Identity } from "../../client/types";
import { namedLookups, type ListLookup, type ListLookupOutput, type OneLookup, type OneLookupOutput } from "../../lookups/core";
import type { GetIdentitiesArgs, GetIdentityArgs } from "./types";
export type { GetIdentitiesArgs, GetIdentityArgs } from "./types";

const lookups = namedLookups<Identity, GetIdentitiesArgs, GetIdentityArgs>(["getIdentities", "getIdentity"], ["identity", "identities"], (c) => c.identities);

/**
 * Lists identities the caller can see, walking pages lazily. Identities in a group are its children
 * (`childrenOf: groupUid`); user identities are root-level (`inRoot: true`).
 * @returns identities in `orderBy` order (default `uid`); empty when none match.
 * @throws TypeError for bad arguments; ApiError from the API; SettingsError when not configured.
 * @example const ci = await getIdentities({ childrenOf: teamUid, name: "github-actions" });
 */
export const getIdentities: ListLookup<GetIdentitiesArgs, Identity> = lookups.list;

/** {@link getIdentities} with `Input` arguments and an `Output` result. */
export const getIdentitiesOutput: ListLookupOutput<GetIdentitiesArgs, Identity> = lookups.listOutput;

/**
 * Gets one identity: by `uid`, or by filters that must match exactly one identity.
 * @throws TypeError when both or neither of `uid` and filters are given; LookupError when the filters match
 *   none or several (listing their uids); NotFoundError when no identity has that `uid`; other ApiErrors.
 * @example const ci = await getIdentity({ name: "github-actions", parentUid: teamUid });
 */
export const getIdentity: OneLookup<GetIdentityArgs, Identity> = lookups.one;

/** {@link getIdentity} with `Input` arguments and an `Output` result. */
export const getIdentityOutput: OneLookupOutput<GetIdentityArgs, Identity> = lookups.oneOutput;
