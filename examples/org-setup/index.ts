/**
 * The org-setup program: declares an org described in a YAML file (groups in a hierarchy, workload identities,
 * role bindings) under the org's root group. The root Pulumi.yaml runs it.
 *
 * Inputs: the org file (`ORG_FILE`, default `examples/org-setup/org.yaml` under the project folder; format in
 * ./README.md) and the root group's uid (`platform:orgUid` or `PLATFORM_ORG_UID`). Roles are found by name
 * with getRoles. The whole file is checked before any resource is declared. An object with a `uid` in the file is
 * adopted (`adoptUid`), so a file written by `platform-pulumi export --format yaml` adopts the org it describes.
 *
 * Stack outputs: `groupUids` (uid by group path), `identityUids` (uid by identity path), `counts`
 * ({groups, identities, bindings}).
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Group, Identity, RoleBinding, getRoles } from "platform-pulumi";
import { loadOrgFile } from "./orgFile";

export = async () => {
  const orgUid = new pulumi.Config("platform").get("orgUid") ?? process.env["PLATFORM_ORG_UID"];
  if (!orgUid) throw new Error("the org's root group uid is not set: set stack config `platform:orgUid` or PLATFORM_ORG_UID");
  const file = path.resolve(process.env["ORG_FILE"] ?? "examples/org-setup/org.yaml");

  const roles = new Map((await getRoles()).map((r) => [r.name, r.uid]));
  const org = loadOrgFile(file, new Set(roles.keys()));

  const groups = new Map<string, Group>();
  for (const g of org.groups) {
    const parentUid = g.parentPath === undefined ? orgUid : groups.get(g.parentPath)!.uid;
    groups.set(g.path, new Group(g.path, { parentUid, name: g.name, description: g.description ?? "", ...(g.uid ? { adoptUid: g.uid } : {}) }));
  }

  const identities = new Map<string, Identity>();
  for (const id of org.identities) {
    identities.set(
      id.path,
      new Identity(id.path, {
        parentUid: groups.get(id.group)!.uid,
        name: id.name,
        description: id.description ?? "",
        claimMatch: id.claimMatch,
        ...(id.uid ? { adoptUid: id.uid } : {}),
      }),
    );
  }

  for (const b of org.bindings) {
    new RoleBinding(`${b.identity}@${b.group}#${b.role}`, {
      groupUid: groups.get(b.group)!.uid,
      identityUid: identities.get(b.identity)!.uid,
      roleUid: roles.get(b.role)!,
      ...(b.uid ? { adoptUid: b.uid } : {}),
    });
  }

  return {
    groupUids: Object.fromEntries([...groups].map(([p, g]) => [p, g.uid])),
    identityUids: Object.fromEntries([...identities].map(([p, i]) => [p, i.uid])),
    counts: { groups: org.groups.length, identities: org.identities.length, bindings: org.bindings.length },
  };
};
