// Two groups and a deploy identity; drift.ts edits one group and deletes the identity outside Pulumi.
const { Group, Identity } = require("platform-pulumi");

const orgUid = process.env.PLATFORM_ORG_UID;
const apps = new Group("apps", { parentUid: orgUid, name: "apps", description: "Application teams" });
new Group("data", { parentUid: orgUid, name: "data", description: "Data platform" });
const deployer = new Identity("deployer", {
  parentUid: apps.uid,
  name: "deployer",
  description: "CD pipeline",
  claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/apps:environment:production" },
});
module.exports = { appsUid: apps.uid, deployerUid: deployer.uid };
