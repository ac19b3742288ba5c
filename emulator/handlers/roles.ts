/**
 * `/iam/{version}/roles`: list and get. The built-in roles are seeded at start with single-segment uids
 * (FACTS.md: "Built-in role uids are one 40-hex segment") derived from their names, so a uid is the same in
 * every emulator run.
 */
import { envelope, paginate, parseListQuery } from "../list";
import type { RoleRow, Store } from "../store";
import { stableRootUid } from "../uidp";
import { mustGet, prefixes, uidParam, type Handler } from "./common";

const READ = ["CAP_IAM_GROUPS_LIST", "CAP_IAM_IDENTITY_LIST", "CAP_IAM_ROLES_LIST", "CAP_IAM_ROLE_BINDINGS_LIST", "CAP_REPO_LIST", "CAP_TAG_LIST"];
const WRITE = ["CAP_IAM_GROUPS_CREATE", "CAP_IAM_GROUPS_UPDATE", "CAP_IAM_IDENTITY_CREATE", "CAP_IAM_IDENTITY_UPDATE"];
const ADMIN = [
  "CAP_IAM_GROUPS_DELETE",
  "CAP_IAM_IDENTITY_DELETE",
  "CAP_IAM_ROLES_CREATE",
  "CAP_IAM_ROLES_UPDATE",
  "CAP_IAM_ROLES_DELETE",
  "CAP_IAM_ROLE_BINDINGS_CREATE",
  "CAP_IAM_ROLE_BINDINGS_UPDATE",
  "CAP_IAM_ROLE_BINDINGS_DELETE",
];

/** The built-in roles: name, description and capabilities. */
export const BUILTIN_ROLES: ReadonlyArray<{ name: string; description: string; capabilities: string[] }> = [
  { name: "viewer", description: "Built-in role: read access to the group and its descendants.", capabilities: READ },
  { name: "editor", description: "Built-in role: viewer plus creating and updating groups and identities.", capabilities: [...READ, ...WRITE] },
  { name: "owner", description: "Built-in role: editor plus deletes, roles and role bindings.", capabilities: [...READ, ...WRITE, ...ADMIN] },
  {
    name: "registry.pull",
    description: "Built-in role: pull images (read repos, tags and manifests).",
    capabilities: ["CAP_REPO_LIST", "CAP_TAG_LIST", "CAP_MANIFEST_LIST", "CAP_REPO_BLOBS_GET"],
  },
];

/** Seeds the built-in roles into `store`; returns them by name. */
export function seedBuiltinRoles(store: Store, createTime: string): Map<string, RoleRow> {
  const byName = new Map<string, RoleRow>();
  for (const r of BUILTIN_ROLES) {
    const row: RoleRow = { uid: stableRootUid(r.name), ...r, capabilities: [...r.capabilities], createTime, updateTime: createTime };
    store.roles.put(row);
    byName.set(r.name, row);
  }
  return byName;
}

/** Registers the roles routes. */
export const roles: Handler = (app, ctx) => {
  const { store } = ctx;
  for (const base of prefixes(ctx, "iam", "roles")) {
    app.get(base, async (req) => {
      const q = parseListQuery(req.query as Record<string, string>);
      return envelope("roles", paginate(store.roles.all(), q), (r) => r);
    });
    app.get(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      return mustGet(store.roles.get(uid), "iam.role", uid);
    });
  }
};
