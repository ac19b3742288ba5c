/**
 * The API objects a group can hold, as one row each (kind, uid, a name a person recognises), and how a kind lists
 * them: `platform-pulumi unmanaged` (under a stack's groups) and a group's delete (the children that block it)
 * both read them. The kind registry (`registry.ts`) gathers every kind's lister into {@link GroupChildren}; the
 * provider context (`context.ts`) hands that to a group's delete, so nothing below the registry imports it.
 */
import type { PlatformClient } from "../client/client";
import type { ListParams } from "../client/pagination";

/** One object of a kind listed under a group, named as a person would look for it. */
export interface ObjectRow {
  /** Resource kind, e.g. `Group`. */
  kind: string;
  uid: string;
  /** Its name (or what stands for one: a binding's `<identity> → <role>`, a subscription's sink). */
  name: string;
}

/** A listed row that does not have its kind's shape: the kind, its uid when the row has a string one, and what is wrong (server text: print it inert). */
export interface BadRow {
  kind: string;
  uid?: string;
  problem: string;
}

/** Lists one kind's rows matching `params` (e.g. `{ childrenOf }` or `{ descendantsOf }`), at most `limit` of them. */
export type ObjectLister = (client: PlatformClient, params: ListParams, limit?: number) => Promise<ObjectRow[]>;

/** What a group's delete knows of the kinds a group holds (the registry's `groupChildren()`). */
export interface GroupChildren {
  /** The listers of the kinds whose objects keep a group from being deleted (`blocksGroupDelete`), in the registry's order. */
  readonly blocking: ReadonlyArray<readonly [kind: string, list: ObjectLister]>;
  /** The kinds whose objects are named by their path in messages (containers: groups, repos). */
  readonly containers: ReadonlySet<string>;
}
