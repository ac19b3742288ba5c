/**
 * The API objects a group can hold, listed by kind as one row each (kind, uid, a name a person recognises), as the
 * kind registry (`registry.ts`) declares them: `platform-pulumi unmanaged` (under a stack's groups) and a group's
 * delete (the children that block it) both read them, so a kind added to the registry is found and named by both.
 *
 * The registry imports every resource file, and the Group's delete reaches this module through `lifecycle.ts`: so
 * the registry is imported when a function here is first called (a dynamic import), never while modules load,
 * and no module cycle exists at load time.
 */
import type { PlatformClient } from "../client/client";
import type { ListParams } from "../client/pagination";
import type { ObjectRow } from "./declare";

export type { ObjectRow } from "./declare";
export { betaOnly } from "./common";

/** Lists one kind's rows matching `params` (e.g. `{ childrenOf }` or `{ descendantsOf }`), at most `limit` of them. */
export type ObjectLister = (client: PlatformClient, params: ListParams, limit?: number) => Promise<ObjectRow[]>;

/** The kind registry, loaded on first use (see the module comment). */
const registry = () => import("./registry");

/**
 * Every kind a group holds, with its lister, in the registry's order (kinds declared with `listing: false`, such as
 * account associations, one per group, are not listed).
 */
export async function objectListers(): Promise<ReadonlyArray<readonly [kind: string, list: ObjectLister]>> {
  const { KINDS } = await registry();
  return KINDS.flatMap((k) => (k.list ? [[k.kind, k.list] as const] : []));
}

/** The listers of the kinds whose objects keep a group from being deleted (`blocksGroupDelete`). */
export async function blockingListers(): Promise<ReadonlyArray<readonly [kind: string, list: ObjectLister]>> {
  const { kindEntry } = await registry();
  return (await objectListers()).filter(([kind]) => kindEntry(kind)?.blocksGroupDelete);
}

/** The kinds whose objects are named by their path in messages (containers: groups, repos). */
export async function containerKinds(): Promise<ReadonlySet<string>> {
  const { KINDS } = await registry();
  return new Set(KINDS.filter((k) => k.container).map((k) => k.kind));
}
