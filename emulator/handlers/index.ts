/**
 * The one list of the collections the emulator serves: a new collection is its handler file here and its line
 * below, nothing else (the store's tables, the routes, `childrenOf` and the state dump follow from it).
 */
import { accountAssociations } from "./accountAssociations";
import { advisories } from "./advisories";
import { groupInvites } from "./groupInvites";
import { groups } from "./groups";
import { identities } from "./identities";
import { identityProviders } from "./identityProviders";
import { overlayBindings, overlays } from "./overlays";
import { repos, tags } from "./registry";
import { roleBindings } from "./roleBindings";
import { roles } from "./roles";
import { subscriptions } from "./subscriptions";

/** Every collection the emulator serves, in route order. */
export const SPECS = [
  groups, identities, roles, roleBindings, identityProviders, accountAssociations, groupInvites,
  repos, tags, overlays, overlayBindings, subscriptions, advisories,
];

/**
 * Every table of one emulated org: each collection's, then `repoReadmes`, a repo's `readme` sub-resource (seed
 * §6, `GET /registry/{version}/repos/{uid}/readme`), which is no collection of its own.
 */
export const TABLES: readonly string[] = [...SPECS.map((s) => s.collection), "repoReadmes"];

/**
 * The collections also served read-only under `/<api>/v1/` (seed §9 rule 2 names `/iam/v1/...` and
 * `/registry/v1/...`): IAM, and the registry's repos and tags, which the v1 API has. Overlays, overlay bindings,
 * event subscriptions and advisories have no v1 form in the contract.
 */
export const V1_SPECS = SPECS.filter((s) => s.api === "iam" || s === repos || s === tags);
