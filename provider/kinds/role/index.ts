/**
 * Role: a custom IAM role under a group, granting capabilities (`pulumi-nodejs:dynamic/platform:Role`).
 *
 * Capabilities are given by their dotted names (`groups.list`, `role_bindings.create`) or wire names
 * (`CAP_IAM_GROUPS_LIST`); check validates every one and normalizes them (wire form, sorted, deduplicated), so
 * order and spelling never show as a diff. A change of `parentUid` replaces; `name`, `description` and
 * `capabilities` PATCH in place. Built-in roles (`viewer`, …) are not resources: find them with `getRoles`.
 */
import * as pulumi from "@pulumi/pulumi";
import { dottedName, dottedNames, wireName } from "../../capabilities";
import type { ApiRole } from "../../client/types";
import { isUnknown, nameProblem, optionalStringProblem, uidpProblem } from "../../validation";
import { z } from "zod";
import { createOnly, declareResource, mutable, parent } from "../../engine/declare";
import { adoptUidArg, createTime, descriptionArg, lookupsByName, nameArg, uidArg, updateTime } from "../../engine/fieldTypes";
import { PlatformResource, type ResourceShape } from "../../engine/shim";
import type { RoleArgs, RoleInputs, RoleOutputs, RoleOutputProperties } from "./types";
export type { RoleArgs, RoleInputs, RoleOutputs, RoleOutputProperties } from "./types";

/** Wire form, deduplicated and sorted: order and spelling never show as a diff. Unknown entries are kept. */
function normalizeCapabilities(v: unknown): unknown {
  if (!Array.isArray(v) || v.length === 0) return v;
  const wire = v.flatMap((c: unknown) => (isUnknown(c) ? [c as string] : typeof c === "string" && wireName(c) ? [wireName(c)!] : []));
  return [...new Set(wire)].sort();
}

/** The Role kind's declaration, as the kind registry (`registry.ts`) lists it; its `provider` runs in the provider process. */
export const roleKind = declareResource<RoleInputs, RoleOutputs, ApiRole>({
  kind: "Role",
  what: "role",
  description: "A custom IAM role under a group, granting capabilities. Built-in roles (`viewer`, `editor`, `owner`, …) are not resources: find them with `getRole`.",
  module: "iam",
  collection: (c) => c.roles,
  lookups: lookupsByName("Roles", {
    listName: "Exact role name, e.g. `viewer`, `editor`, `owner`, `registry.pull`. Default: every role.",
    name: "Exact role name, e.g. `editor`.",
    parentUid: "uid of the group owning a custom role (`uidp.children_of`). Default: any (built-in roles included).",
    list: "Lists roles (built-in and custom), walking pages lazily.",
    listExample: "const [editor] = await getRoles({ name: \"editor\" });",
    oneExample: "const editor = await getRole({ name: \"editor\" });",
    oneNote: "A custom role named like a built-in one makes `{ name }` alone ambiguous: add `parentUid`, or use the uid.",
  }),
  fields: {
    parentUid: parent({ type: uidArg("uid of the group the role belongs to (usable there and below). Changing it replaces the role.") }),
    name: mutable({ check: nameProblem, type: nameArg("Role") }),
    description: mutable({ check: optionalStringProblem, default: "", type: descriptionArg }),
    capabilities: mutable({
      type: z.array(z.string()).describe("At least one capability, by dotted (`groups.list`) or wire (`CAP_IAM_GROUPS_LIST`) name; stored in wire form, sorted and deduplicated."),
      check: (v) => (isUnknown(v) || (Array.isArray(v) && v.length > 0) ? undefined : "at least one capability is required, e.g. groups.list"),
      nested: (v, f) => {
        if (!Array.isArray(v)) return;
        v.forEach((c: unknown, i) => {
          if (!isUnknown(c) && !(typeof c === "string" && wireName(c))) f.add(`capabilities[${i}]`, `"${String(c)}" is not a capability; known: ${dottedNames().join(", ")}`);
        });
      },
      normalize: normalizeCapabilities,
      fromServer: (v) => [...new Set(v as string[])].sort(),
      // Dotted names read better (`groups.list`); a capability that does not map back exactly stays in wire form.
      exportAs: (v) => [...new Set(v as string[])].sort().map((w) => (wireName(dottedName(w)) === w ? dottedName(w) : w)),
    }),
    adoptUid: createOnly({ check: uidpProblem, type: adoptUidArg("custom role") }),
  },
  server: { createTime, updateTime },
});

/** The typed outputs of the class (generated from the declaration). */
export interface Role extends RoleOutputProperties {}

/**
 * A custom role.
 *
 * @example
 * ```ts
 * const auditor = new Role("auditor", { parentUid: orgUid, name: "auditor", capabilities: ["groups.list", "identity.list", "role_bindings.list"] });
 * ```
 */
export class Role extends PlatformResource {
  /** @internal The kind's shape (its declaration). */
  static override readonly __shape: ResourceShape = roleKind;

  /** @param name Pulumi resource name. @param args the role's fields. @param opts resource options. */
  constructor(name: string, args: RoleArgs, opts?: pulumi.CustomResourceOptions) {
    super(roleKind, name, args, opts);
  }
}
