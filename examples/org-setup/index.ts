/**
 * The org-setup program: declares an org described in a YAML file (groups in a hierarchy, workload identities,
 * custom roles, role bindings, image repos, event subscriptions) under the org's root group. The root Pulumi.yaml
 * runs it.
 *
 * Inputs: the org file (`ORG_FILE`, default `examples/org-setup/org.yaml` under the project folder; format in
 * ./README.md) and the root group's uid (`platform:orgUid` or `PLATFORM_ORG_UID`). Roles are found by name
 * with getRoles. The whole file is checked before any resource is declared. An object with a `uid` in the file is
 * adopted (`adoptUid`), so a file written by `platform-pulumi export --format yaml` adopts the org it describes.
 *
 * Stack outputs: `groupUids` (uid by group path), `identityUids` (uid by identity path), `repoUids` (uid by repo
 * path), `counts` ({groups, identities, roles, bindings, repos, subscriptions}).
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { Group, Identity, Repo, Role, RoleBinding, Subscription, getRoles, type SyncConfigArgs } from "platform-pulumi";
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

  // Custom roles by name, each at its group; a binding takes the one nearest above its group.
  const customRoles = new Map<string, Array<{ group: string; role: Role }>>();
  for (const r of org.roles) {
    const role = new Role(r.path, { parentUid: groups.get(r.group)!.uid, name: r.name, description: r.description ?? "", capabilities: r.capabilities, ...(r.uid ? { adoptUid: r.uid } : {}) });
    customRoles.set(r.name, [...(customRoles.get(r.name) ?? []), { group: r.group, role }]);
  }
  const roleFor = (name: string, group: string): pulumi.Input<string> => {
    const near = (customRoles.get(name) ?? [])
      .filter((c) => group === c.group || group.startsWith(`${c.group}/`))
      .sort((a, b) => b.group.length - a.group.length)[0];
    return near ? near.role.uid : roles.get(name)!;
  };

  for (const b of org.bindings) {
    new RoleBinding(`${b.identity}@${b.group}#${b.role}`, {
      groupUid: groups.get(b.group)!.uid,
      identityUid: identities.get(b.identity)!.uid,
      roleUid: roleFor(b.role, b.group),
      ...(b.uid ? { adoptUid: b.uid } : {}),
    });
  }

  const repos = new Map<string, Repo>();
  for (const r of org.repos) {
    repos.set(
      r.path,
      new Repo(r.path, {
        parentUid: groups.get(r.group)!.uid,
        name: r.name,
        description: r.description ?? "",
        ...(r.syncConfig ? { syncConfig: Object.fromEntries(Object.entries(r.syncConfig).filter(([, v]) => v !== undefined)) as unknown as SyncConfigArgs } : {}),
        ...(r.readme !== undefined ? { readme: r.readme } : {}),
        ...(r.uid ? { adoptUid: r.uid } : {}),
      }),
    );
  }

  for (const s of org.subscriptions) {
    new Subscription(`${s.group}->${s.sink}`, { parentUid: groups.get(s.group)!.uid, sink: s.sink, ...(s.uid ? { adoptUid: s.uid } : {}) });
  }

  return {
    groupUids: Object.fromEntries([...groups].map(([p, g]) => [p, g.uid])),
    identityUids: Object.fromEntries([...identities].map(([p, i]) => [p, i.uid])),
    repoUids: Object.fromEntries([...repos].map(([p, r]) => [p, r.uid])),
    counts: {
      groups: org.groups.length,
      identities: org.identities.length,
      roles: org.roles.length,
      bindings: org.bindings.length,
      repos: org.repos.length,
      subscriptions: org.subscriptions.length,
    },
  };
};
