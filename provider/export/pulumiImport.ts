/**
 * Pulumi's bulk import file (`pulumi import --file <file>`, Pulumi's docs "Importing resources", "Bulk import"): the
 * objects the export declares, each by the native plugin's type token (`platform:<module>:<Kind>`, the package
 * schema), the model's resource name (unique per kind, stable across exports: `model.ts`) and its uid as the id.
 * Pulumi imports them through the native plugin (docs/native.md) and writes the program in the project's language
 * with its own code generation; what the export leaves out (`Skipped`: invites, user identities, a synced repo's
 * tags) is left out here too.
 */
import { kindEntry } from "../kinds/registry";
import { camel, modelNodes, type OrgModel } from "./model";

/** One entry of the bulk import file: the fields `pulumi import --file` reads that the export sets. */
export interface ImportEntry {
  /** The native type token, e.g. `platform:iam:Group`. */
  type: string;
  /**
   * The name Pulumi's code generation gives the resource's variable: the resource name in camelCase (`engineeringPlatform`),
   * unique in the file. Pulumi's generators take it as it is, so it must be an identifier (a tag's `app:1.0` is not).
   */
  name: string;
  /** The resource name (the model's: `engineering/platform`, `app:1.0`), when it differs from {@link name}. */
  logicalName?: string;
  /** The object's uid. */
  id: string;
}

/** The bulk import file: `{ "resources": [...] }`, kind by kind in the model's order. */
export interface ImportFile {
  resources: ImportEntry[];
}

/**
 * The bulk import file of a model.
 * @throws Error when a node's kind is not in the kind registry (a model built by this package always is).
 */
export function importFile(m: OrgModel): ImportFile {
  const used = new Set<string>();
  return {
    resources: modelNodes(m).map((n) => {
      const k = kindEntry(n.kind);
      if (k === undefined) throw new Error(`export: kind ${n.kind} is not in the kind registry`);
      const base = camel([n.resourceName]) || camel([n.kind]);
      let name = /^[0-9]/.test(base) ? `${camel([n.kind])}${base}` : base;
      if (used.has(name)) name = `${name}${n.kind}`;
      for (let i = 2; used.has(name); i++) name = `${name.replace(/[0-9]+$/, "")}${i}`;
      used.add(name);
      return { type: `platform:${k.module}:${n.kind}`, name, ...(name === n.resourceName ? {} : { logicalName: n.resourceName }), id: n.uid };
    }),
  };
}
