/**
 * Which kinds the export declares: a base of the export's modules (the model, the trust rules and the split layout
 * all key tables by {@link ExportKind}, so none of them imports another for it).
 */
import type { ResourceKind } from "../kinds/registry";

/** The resource kinds the export declares. */
export type ExportKind =
  | "Group" | "Identity" | "Role" | "RoleBinding" | "IdentityProvider" | "AccountAssociation"
  | "Repo" | "Tag" | "Overlay" | "OverlayBinding" | "Subscription";

/**
 * The kinds the export counts but does not declare, each for a reason it reports (`Skipped`): an invite's code is
 * returned only when it is created.
 */
export type UnexportedKind = "GroupInvite";

/**
 * Every kind of the registry (`ResourceKind`) is exported or named in {@link UnexportedKind}: a kind added to the
 * registry fails to compile here until the export places it (and then `MODEL_COLLECTION` (model.ts), the split
 * layout's `REFERENCES` and the trust rules' `CHECKS` ask for it in turn).
 */
export const EVERY_KIND_PLACED: [Exclude<ResourceKind, ExportKind | UnexportedKind>] extends [never] ? true : never = true;
