/**
 * The export's YAML writer (issue 13): the org-setup program's org file (`examples/org-setup`, format in its
 * README) with a `uid` on each object, which the program passes as `adoptUid`. The file format holds nested
 * groups, claimMatch identities with an exact issuer and subject, and bindings of built-in roles by name; what it
 * cannot express is listed as skipped, with why.
 */
import { stringify } from "yaml";
import type { GroupNode, OrgModel, Skipped } from "./model";

/** An org file group with its uid. */
interface YamlGroup {
  name: string;
  uid: string;
  description?: string;
  groups?: YamlGroup[];
}

/** The org file's text and what it could not hold. */
export interface OrgFileExport {
  text: string;
  /** Counts written, by kind. */
  counts: Record<string, number>;
  skipped: Skipped[];
}

/** Writes the model as an org file. */
export function writeOrgFile(m: OrgModel): OrgFileExport {
  const skipped: Skipped[] = [...m.skipped];
  const skip = (kind: string, count: number, why: string) => {
    if (count > 0) skipped.push({ kind, count, why });
  };
  // Paths in the file are names joined by "/", unique: a group with a same-named sibling cannot be referred to.
  const inFile = new Set<string>();
  let dupGroups = 0;
  const walk = (g: GroupNode): YamlGroup | undefined => {
    if (g.path.split("/").pop() !== g.api.name) {
      const count = (n: GroupNode): number => 1 + n.children.reduce((a, c) => a + count(c), 0);
      dupGroups += count(g);
      return undefined;
    }
    inFile.add(g.uid);
    const kids = g.children.map(walk).filter((x): x is YamlGroup => x !== undefined);
    return { name: g.api.name, uid: g.uid, ...(g.api.description ? { description: g.api.description } : {}), ...(kids.length ? { groups: kids } : {}) };
  };
  const groups = m.topGroups.map(walk).filter((x): x is YamlGroup => x !== undefined);
  skip("Group", dupGroups, "a sibling has the same name, and the org file refers to groups by their path of names (with what is under them)");

  const identities: Array<Record<string, unknown>> = [];
  const identityPath = new Map<string, string>();
  let notExact = 0;
  let outOfFile = 0;
  for (const i of m.identities) {
    const cm = i.api.claimMatch;
    const exact = cm && cm.issuer && cm.subject && Object.entries(cm).every(([k, v]) => ["issuer", "subject"].includes(k) || v === undefined || v === "" || (typeof v === "object" && Object.keys(v).length === 0));
    const group = i.parent.to === "declared" && inFile.has(i.parent.node.uid) ? i.parent.node.path : undefined;
    if (!exact) notExact++;
    else if (group === undefined || i.path.split("/").pop() !== i.api.name) outOfFile++;
    else {
      identityPath.set(i.uid, i.path);
      identities.push({ name: i.api.name, uid: i.uid, group, ...(i.api.description ? { description: i.api.description } : {}), claimMatch: { issuer: cm!.issuer, subject: cm!.subject } });
    }
  }
  skip("Identity", notExact, "the org file holds claimMatch identities with an exact issuer and subject only (use --format ts)");
  skip("Identity", outOfFile, "in the root group or a group the file cannot hold");

  const bindings: Array<Record<string, unknown>> = [];
  let unbindable = 0;
  for (const b of m.roleBindings) {
    const identity = b.identity.to === "declared" ? identityPath.get(b.identity.node.uid) : undefined;
    const group = b.parent.to === "declared" && inFile.has(b.parent.node.uid) ? b.parent.node.path : undefined;
    if (identity === undefined || group === undefined || b.role.to !== "builtin") unbindable++;
    else bindings.push({ identity, group, role: b.role.name, uid: b.uid });
  }
  skip("RoleBinding", unbindable, "the org file binds its own identities, at its own groups, to built-in roles only");
  skip("Role", m.roles.length, "the org file has no custom roles (use --format ts)");
  skip("IdentityProvider", m.identityProviders.length, "the org file has no identity providers (use --format ts)");
  skip("AccountAssociation", m.accountAssociations.length, "the org file has no account associations (use --format ts)");

  const header = [
    "# Exported by `platform-pulumi export --format yaml`: the org-setup program's org file, with the uid of each",
    "# existing object, which the program adopts (adoptUid) instead of creating it.",
  ];
  const count = (gs: YamlGroup[]): number => gs.reduce((a, g) => a + 1 + count(g.groups ?? []), 0);
  return {
    text: `${header.join("\n")}\n${stringify({ groups, identities, bindings }, { lineWidth: 0 })}`,
    counts: { Group: count(groups), Identity: identities.length, RoleBinding: bindings.length },
    skipped,
  };
}
