// An identity for GitHub Actions runs of one repository's main branch, bound to `viewer` on one group.
// `issuer` defaults to GitHub's; the demo points it at the emulator's test issuer, which it can verify offline.
const pulumi = require("@pulumi/pulumi");
const { Group, Identity, RoleBinding, getRole } = require("platform-pulumi");

const cfg = new pulumi.Config();
const orgUid = process.env.PLATFORM_ORG_UID;
const deployments = new Group("deployments", { parentUid: orgUid, name: "deployments", description: "Where CI may look" });
new Group("release-notes", { parentUid: deployments.uid, name: "release-notes", description: "Visible to the CI identity" });
const deployer = new Identity("github-deployer", {
  parentUid: deployments.uid,
  name: "github-deployer",
  description: "GitHub Actions, my-org/deployer, main branch",
  claimMatch: {
    issuer: cfg.get("issuer") ?? "https://token.actions.githubusercontent.com",
    subject: "repo:my-org/deployer:ref:refs/heads/main",
    claims: { repository_owner: "my-org" },
  },
});
new RoleBinding("deployer-viewer", { groupUid: deployments.uid, identityUid: deployer.uid, roleUid: getRole({ name: "viewer" }).then((r) => r.uid) });
module.exports = { identityUid: deployer.uid, groupUid: deployments.uid };
