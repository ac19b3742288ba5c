/**
 * The export's reader: everything under one group, read through the API with paged Lists
 * (`uidp.descendants_of`, 200 rows a page, the next page requested before the current one is checked), every
 * kind at once. About one request per 200 objects, plus one per kind, two single GETs (the anchor group and its
 * own account association), and one GET per repo that does not sync for its README (the API has no list of them).
 */
import type { PlatformClient } from "../client/client";
import { isNotFound } from "../client/errors";
import { betaOnly } from "../engine/common";

import type { ListParams, Paginator } from "../client/pagination";
import type { KindApi } from "../kinds/registry";
import { GENERIC_KINDS, genericCollection, type GenericCollection, type GenericKind } from "./kinds";
import type {
  ApiAccountAssociation,
  ApiGroup,
  ApiIdentity,
  ApiIdentityProvider,
  ApiOverlay,
  ApiOverlayBinding,
  ApiRepo,
  ApiRole,
  ApiRoleBinding,
  ApiTag,
} from "../client/types";

/**
 * What the reader found under the anchor group ({@link OrgSnapshot}), the generic kinds aside. Arrays are in the
 * API's order (`uid asc`).
 */
export interface HandReadSnapshot {
  /** The org's root group uid (the anchor's first segment). */
  rootUid: string;
  /** The group everything was read under (`--under`, else the root). It is not itself exported. */
  anchor: ApiGroup;
  groups: ApiGroup[];
  identities: ApiIdentity[];
  /** Custom roles under the anchor. */
  roles: ApiRole[];
  /**
   * Roles outside the anchor that bindings or identity providers refer to: built-in roles (single-segment uids),
   * referred to by name, and custom roles of groups above the anchor, referred to by uid.
   */
  outsideRoles: ApiRole[];
  roleBindings: ApiRoleBinding[];
  identityProviders: ApiIdentityProvider[];
  /** The anchor's own association first when it has one, then those of groups under it. */
  accountAssociations: ApiAccountAssociation[];
  /** How many group invites exist under the anchor (counted, never exported: their codes cannot be read back). */
  groupInvites: number;
  repos: ApiRepo[];
  /** README by repo uid, for the repos that do not sync (a synced repo's README is its source's). */
  readmes: Map<string, string>;
  tags: ApiTag[];
  overlays: ApiOverlay[];
  overlayBindings: ApiOverlayBinding[];
}

/** The objects of each generic kind (`kinds.ts`) under the anchor, by its collection (`subscriptions`), in the API's order. */
export type GenericSnapshot = { [K in GenericKind as GenericCollection<K>]: Array<KindApi<K>> };

/** What the reader found under the anchor group. Arrays are in the API's order (`uid asc`). */
export type OrgSnapshot = HandReadSnapshot & GenericSnapshot;

/** Progress of a read: called as pages arrive. */
export interface ReadProgress {
  /** A kind's total became known (from its first page's `totalCount`). */
  total(kind: string, count: number): void;
  /** `count` more objects of `kind` arrived. */
  advance(kind: string, count: number): void;
}

/** The kinds the reader lists, in summary order: the hand-placed ones, then each generic kind's collection. */
export const READ_KINDS: readonly string[] = [
  "groups", "identities", "roles", "roleBindings", "identityProviders", "accountAssociations", "groupInvites",
  "repos", "tags", "overlays", "overlayBindings", ...GENERIC_KINDS.map((k) => genericCollection(k.kind)),
];

async function collect<T>(kind: string, p: Paginator<T>, progress: ReadProgress | undefined): Promise<T[]> {
  const out: T[] = [];
  let first = true;
  for await (const page of p.pages(true)) {
    if (first && page.totalCount !== undefined) progress?.total(kind, page.totalCount);
    first = false;
    out.push(...page.items);
    progress?.advance(kind, page.items.length);
  }
  return out;
}

export { betaOnly };

/**
 * Reads every object of the exported kinds under `anchorUid`.
 * @throws NotFoundError when the anchor group does not exist; any API error of the lists (after the client's retries).
 */
export async function readOrg(client: PlatformClient, anchorUid: string, progress?: ReadProgress): Promise<OrgSnapshot> {
  const under: ListParams = { descendantsOf: anchorUid, pageSize: 200 };
  const anchorAssociation = async (): Promise<ApiAccountAssociation[]> => {
    try {
      return [await client.accountAssociations.get(anchorUid)];
    } catch (err) {
      if (isNotFound(err)) return [];
      throw err;
    }
  };
  const registry = Promise.all([
    collect("repos", client.repos.list(under), progress),
    collect("tags", client.tags.list(under), progress),
    // Overlays are served under beta version segments only: on the GA paths there are none to export.
    betaOnly(collect("overlays", client.overlays.list(under), progress)),
    betaOnly(collect("overlayBindings", client.overlayBindings.list(under), progress)),
    // Every generic kind (kinds.ts) by its declaration's collection; one served under beta segments only lists none on GA paths.
    ...GENERIC_KINDS.map((k) => {
      const rows = collect<{ uid: string }>(genericCollection(k.kind), k.collection(client).list(under), progress);
      return k.betaOnly ? betaOnly(rows) : rows;
    }),
  ]);
  registry.catch(() => undefined); // observed below
  const [anchor, groups, identities, roles, roleBindings, identityProviders, associations, own, invites] = await Promise.all([
    client.groups.get(anchorUid),
    collect("groups", client.groups.list(under), progress),
    collect("identities", client.identities.list(under), progress),
    collect("roles", client.roles.list(under), progress),
    collect("roleBindings", client.roleBindings.list(under), progress),
    collect("identityProviders", client.identityProviders.list(under), progress),
    collect("accountAssociations", client.accountAssociations.list(under), progress),
    anchorAssociation(),
    collect("groupInvites", client.groupInvites.list(under), progress),
  ]);
  if (own.length > 0) progress?.advance("accountAssociations", own.length);
  // The roles referred to from outside the anchor (built-ins above all): one List by uid per 100 of them.
  const inside = new Set(roles.map((r) => r.uid));
  const wanted = new Set<string>();
  for (const b of roleBindings) {
    const uid = b.roleUid ?? b.role?.uid;
    if (uid && !inside.has(uid)) wanted.add(uid);
  }
  for (const p of identityProviders) if (p.defaultRole && !inside.has(p.defaultRole)) wanted.add(p.defaultRole);
  const ids = [...wanted].sort();
  const outsideRoles: ApiRole[] = [];
  for (let i = 0; i < ids.length; i += 100) outsideRoles.push(...(await client.roles.list({ ids: ids.slice(i, i + 100), pageSize: 200 }).collect()));
  const [repos, tags, overlays, overlayBindings, ...generic] = await registry;
  // READMEs: one GET each, a few at a time.
  const readmes = new Map<string, string>();
  const unsynced = repos.filter((r) => r.sync_config === undefined);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(8, unsynced.length) }, async () => {
      while (next < unsynced.length) {
        const r = unsynced[next++]!;
        readmes.set(r.uid, (await client.repos.getReadme(r.uid)).content);
      }
    }),
  );
  return {
    rootUid: anchorUid.split("/")[0]!,
    anchor,
    groups,
    identities,
    roles,
    outsideRoles,
    roleBindings,
    identityProviders,
    accountAssociations: [...own, ...associations],
    groupInvites: invites.length,
    repos,
    readmes,
    tags,
    overlays,
    overlayBindings,
    ...(Object.fromEntries(GENERIC_KINDS.map((k, i) => [genericCollection(k.kind), generic[i]])) as GenericSnapshot),
  };
}
