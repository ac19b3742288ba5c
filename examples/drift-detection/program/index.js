// Two groups and a deploy identity: a small stack to try `platform-pulumi drift` on. Config `dataDescription`
// changes one group's description (a program edit not yet applied shows as pending, not as drift).
const pulumi = require("@pulumi/pulumi");
const { Group, Identity } = require("platform-pulumi");

const orgUid = new pulumi.Config("platform").get("orgUid") ?? process.env.PLATFORM_ORG_UID;
// Read, not managed: whatever the root group looks like, it is not this stack's drift.
const root = Group.get("root", orgUid);
const apps = new Group("apps", { parentUid: orgUid, name: "apps", description: "Application teams" });
new Group("data", { parentUid: orgUid, name: "data", description: new pulumi.Config().get("dataDescription") ?? "Data platform" });
const deployer = new Identity("deployer", {
  parentUid: apps.uid,
  name: "deployer",
  description: "CD pipeline",
  claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/apps:environment:production" },
});
module.exports = { appsUid: apps.uid, deployerUid: deployer.uid, rootName: root.name };
