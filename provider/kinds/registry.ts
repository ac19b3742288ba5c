/**
 * The kind registry: every resource kind this package serves, once, in the order reports list them. Each entry is
 * the kind's declaration (`declare.ts`) and carries what other modules read of it: its provider for a provider
 * context (`providerFor`, which the runtime binds to the process's context), its collection, its display name,
 * its create-ownership rule (create recovery and `platform-pulumi recover`), how its objects are listed and named under a group and whether they block the
 * group's delete (`unmanaged`, `describeChildren`), and its fields (from which `export` writes it).
 *
 * Adding a kind: see `docs/architecture.md`, "Add a kind", for its line here and the few edits outside its folder.
 */
import { provideGroupChildren, type ProviderContext } from "../engine/context";
import type { ProviderImpl } from "../engine/common";
import type { DeclaredResource } from "../engine/declare";
import { accountAssociationKind } from "./accountAssociation";
import { groupKind } from "./group";
import { groupInviteKind } from "./groupInvite";
import { identityKind } from "./identity";
import { identityProviderKind } from "./identityProvider";
import { overlayKind } from "./overlay";
import { overlayBindingKind } from "./overlayBinding";
import { repoKind } from "./repo";
import { roleKind } from "./role";
import { roleBindingKind } from "./roleBinding";
import type { GroupChildren, ObjectLister } from "../engine/rows";
import { subscriptionKind } from "./subscription";
import { tagKind } from "./tag";

/**
 * A registry entry: a declared kind with its types erased (each kind's own file keeps them). `providerFor(ctx)`
 * is its provider bound to a provider context (`context.ts`); `provider`, bound to the process's context.
 */
export type KindEntry = DeclaredResource<object, object, { uid: string }> & {
  readonly provider: ProviderImpl<object, object>;
  providerFor(ctx: ProviderContext): ProviderImpl<object, object>;
};

const erase = <I extends object, O extends I, A extends { uid: string }>(k: DeclaredResource<I, O, A>): KindEntry => k as unknown as KindEntry;

/**
 * Every kind's declaration by its name, in the order reports list them. A key must be its declaration's `kind`
 * (`test/registry-resources.unit.test.ts`).
 */
const DECLARED = {
  Group: groupKind,
  Identity: identityKind,
  Role: roleKind,
  RoleBinding: roleBindingKind,
  IdentityProvider: identityProviderKind,
  AccountAssociation: accountAssociationKind,
  GroupInvite: groupInviteKind,
  Repo: repoKind,
  Tag: tagKind,
  Overlay: overlayKind,
  OverlayBinding: overlayBindingKind,
  Subscription: subscriptionKind,
} as const;

/**
 * The kinds this package serves, derived from the registry: the last segment of each type token, the runtime's
 * `providers` keys, and what `export` must place (`export/kinds.ts`).
 */
export type ResourceKind = keyof typeof DECLARED;

/** The API object of a kind (its declaration's third type argument, e.g. a subscription's `{ uid, sink, ... }`). */
export type KindApi<K extends ResourceKind> = Parameters<(typeof DECLARED)[K]["outputsOf"]>[0];

/** Every kind, in the order reports list them. */
export const KINDS: readonly KindEntry[] = Object.values(DECLARED).map((k) => erase(k as DeclaredResource<object, object, { uid: string }>));

/** The registry's entry of a kind, or undefined when this package does not know it. */
export function kindEntry(kind: string): KindEntry | undefined {
  return KINDS.find((k) => k.kind === kind);
}

/** Every kind's name, in the registry's order. */
export const KIND_NAMES = Object.keys(DECLARED) as readonly ResourceKind[];

/**
 * Every kind a group holds, with its lister, in the registry's order (kinds declared with `listing: false`, such as
 * account associations, one per group, are not listed): `platform-pulumi unmanaged` reads them all.
 */
export function objectListers(): ReadonlyArray<readonly [kind: string, list: ObjectLister]> {
  return KINDS.flatMap((k) => (k.list ? [[k.kind, k.list] as const] : []));
}

/** What a group's delete waits on and names: the listers of the kinds that block it, and the container kinds. */
export function groupChildren(): GroupChildren {
  return {
    blocking: objectListers().filter(([kind]) => kindEntry(kind)?.blocksGroupDelete),
    containers: new Set(KINDS.filter((k) => k.container).map((k) => k.kind)),
  };
}

// A group's delete reaches these through its provider context (context.ts), not by importing this module.
provideGroupChildren(groupChildren);
