// An org as a user declares it (Org from ORG_FILE), plus bindings at the root group, which an org file's groups
// do not name (an identity's uid read from Org's identityUids depends on every identity of the org, so the gate can
// judge such a binding only once the identity exists): ROOT_BINDINGS='[{"identity":"platform/ci/gha-deployer","role":"owner"}]' (a built-in role by name).
const { Identity, Org, RoleBinding, getRolesOutput } = require("platform-pulumi");

const parentUid = process.env.PLATFORM_ORG_UID;
const org = new Org("org", { parentUid, file: process.env.ORG_FILE });
for (const b of JSON.parse(process.env.ROOT_BINDINGS || "[]")) {
  new RoleBinding(`root-${b.identity.replace(/\//g, "-")}-${b.role}`, {
    groupUid: parentUid,
    identityUid: org.identityUids.apply((u) => u[b.identity]),
    roleUid: getRolesOutput({ name: b.role }).apply((r) => r[0].uid),
  });
}
// Identities at the root group, each bound at the root: ROOT_IDENTITIES='[{"name":"release","claimMatch":{...},"role":"owner"}]'.
for (const i of JSON.parse(process.env.ROOT_IDENTITIES || "[]")) {
  const identity = new Identity(`root-${i.name}`, { parentUid, name: i.name, description: "bound at the root", claimMatch: i.claimMatch });
  new RoleBinding(`root-${i.name}-${i.role}`, { groupUid: parentUid, identityUid: identity.uid, roleUid: getRolesOutput({ name: i.role }).apply((r) => r[0].uid) });
}
module.exports = { identityUids: org.identityUids, counts: org.counts };
