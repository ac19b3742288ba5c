/**
 * `/vulnerabilities/{version}/advisories`: list and get over seeded advisories (read-only here). List filters
 * (each repeated or comma-separated, snake_case or camelCase): `advisory_ids`, `artifact_names`,
 * `artifact_types`, `artifact_architectures`, `component_names`, `component_types`, `aliases`.
 */
import type { CollectionSpec } from "../collection";
import { repeated, type RawQuery } from "../list";
import { parentOf } from "../uidp";

const FILTERS: Array<[param: string, field: string]> = [
  ["advisory_ids", "advisoryId"],
  ["artifact_names", "artifactName"],
  ["artifact_types", "artifactType"],
  ["artifact_architectures", "artifactArchitecture"],
  ["component_names", "componentName"],
  ["component_types", "componentType"],
];

export const advisories: CollectionSpec = {
  api: "vulnerabilities",
  collection: "advisories",
  resourceType: "vulnerabilities.advisory",
  caps: { list: "CAP_ADVISORIES_LIST" },
  scopeOf: (uid) => parentOf(uid),
  orderFields: ["advisoryId", "artifactName", "artifactType", "componentName", "createTime", "updateTime"],
  listFilter(query: RawQuery) {
    const checks: Array<(row: Record<string, unknown>) => boolean> = [];
    const key: unknown[] = [];
    for (const [p, field] of FILTERS) {
      const values = repeated(query, p);
      key.push(values);
      if (values) {
        const set = new Set(values);
        checks.push((r) => set.has(String(r[field] ?? "")));
      }
    }
    const aliases = repeated(query, "aliases");
    key.push(aliases);
    if (aliases) checks.push((r) => ((r["aliases"] as string[] | undefined) ?? []).some((a) => aliases.includes(a)));
    return { predicate: checks.length ? (row) => checks.every((c) => c(row)) : null, key: JSON.stringify(key) };
  },
};
