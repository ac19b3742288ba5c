/**
 * Which kinds the export declares, and how: a base of the export's modules (the model, the trust rules and the split
 * layout all key tables by {@link ExportKind}, so none of them imports another for it).
 *
 * - **Placed by hand** ({@link HandPlacedKind}): kinds whose objects refer to other objects, sit under a repo, need
 *   a variable, or are not found by a List under a group (groups, identities, roles, bindings, the registry's).
 * - **Skipped by hand** ({@link UnexportedKind}): counted and reported (`Skipped`) with the reason `model.ts` gives.
 * - **Every other kind of the registry** ({@link GenericKind}) takes the generic path, from its declaration
 *   alone (`docs/export.md`, "A kind on the generic path"): read under the anchor with its collection's List, its
 *   objects are children of their group (parent from the declaration's `parentKey`, resource name
 *   `<group path>-><label>` from its `listing` label), checked by its fields' `check` rules (`trust.ts`),
 *   referring only to their parent (`split.ts`), written in their group after the hand-placed kinds
 *   (`typescript.ts`), and skipped by the org file (`yaml.ts`). A declaration with `export: { skip: why }` is
 *   counted and reported as not exported, with `why`, instead. So a kind added to the registry is never silently
 *   dropped: it is exported generically unless it says why not.
 */
import { KINDS, type KindEntry, type ResourceKind } from "../kinds/registry";

/** The kinds the export places by hand, in the model's order. */
export const HAND_PLACED_KINDS = [
  "Group", "Identity", "Role", "RoleBinding", "IdentityProvider", "AccountAssociation", "Repo", "Tag", "Overlay", "OverlayBinding",
] as const satisfies readonly ResourceKind[];

/** The kinds the export places by hand. */
export type HandPlacedKind = (typeof HAND_PLACED_KINDS)[number];

/**
 * The kinds the export counts but does not declare, each for a reason it reports (`Skipped`): an invite's code is
 * returned only when it is created.
 */
export type UnexportedKind = "GroupInvite";

/** The kinds of the generic path: every kind of the registry not placed or skipped by hand. */
export type GenericKind = Exclude<ResourceKind, HandPlacedKind | UnexportedKind>;

/** The resource kinds the export declares (a generic kind whose declaration says `export: { skip }` declares none). */
export type ExportKind = HandPlacedKind | GenericKind;

/**
 * Every kind of the registry (`ResourceKind`) is placed by hand, skipped by hand, or generic: true by construction
 * now that every other kind is generic; kept so that narrowing {@link GenericKind} cannot drop a kind unseen.
 */
export const EVERY_KIND_PLACED: [Exclude<ResourceKind, ExportKind | UnexportedKind>] extends [never] ? true : never = true;

/** The snapshot's and the model's collection of a generic kind: its name, first letter lower case, plus `s` (`subscriptions`). */
export type GenericCollection<K extends GenericKind = GenericKind> = `${Uncapitalize<K>}s`;

/** {@link GenericCollection} of a kind's name. */
export function genericCollection<K extends GenericKind>(kind: K): GenericCollection<K> {
  return `${kind[0]!.toLowerCase()}${kind.slice(1)}s` as GenericCollection<K>;
}

const BY_HAND: ReadonlySet<string> = new Set<string>([...HAND_PLACED_KINDS, "GroupInvite" satisfies UnexportedKind]);

/** The registry's entries of the generic kinds, in the registry's order (those that say `export: { skip }` too). */
export const GENERIC_KINDS: ReadonlyArray<KindEntry & { kind: GenericKind }> = KINDS.filter((k): k is KindEntry & { kind: GenericKind } => !BY_HAND.has(k.kind));

/** Whether the export declares objects of a kind of the registry (not skipped by hand or by its declaration). */
export function declaresKind(k: KindEntry): boolean {
  return !BY_HAND.has(k.kind) ? k.export === undefined : k.kind !== ("GroupInvite" satisfies UnexportedKind);
}
