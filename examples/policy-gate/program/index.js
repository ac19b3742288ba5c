// A team group with a CI identity and its binding. Config changes names, issuer and subject rule, and the
// binding's role (ciRole, default editor) and group (ciRoleAtRoot: bind at the org's root group instead).
const pulumi = require("@pulumi/pulumi");
const { Group, Identity, RoleBinding, getRole } = require("platform-pulumi");

const cfg = new pulumi.Config();
const orgUid = new pulumi.Config("platform").get("orgUid") ?? process.env.PLATFORM_ORG_UID;
const team = new Group("team", { parentUid: orgUid, name: cfg.get("teamName") ?? "payments", description: cfg.get("teamDescription") ?? "Payments team" });
const ci = new Identity("ci", {
  parentUid: team.uid,
  name: "payments-ci",
  description: "GitHub Actions deploys of the payments service",
  claimMatch: {
    ...(cfg.get("issuerPattern")
      ? { issuerPattern: cfg.get("issuerPattern") }
      : { issuer: cfg.get("issuer") ?? "https://token.actions.githubusercontent.com" }),
    subjectPattern: cfg.get("subjectPattern") ?? "^repo:my-org/payments:ref:refs/heads/(main|release)$",
  },
});
new RoleBinding("ci-editor", {
  groupUid: cfg.getBoolean("ciRoleAtRoot") ? orgUid : team.uid,
  identityUid: ci.uid,
  roleUid: getRole({ name: cfg.get("ciRole") ?? "editor" }).then((r) => r.uid),
});
