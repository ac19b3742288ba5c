// Engine-test program, written as a user would: the package by name, config for what the test varies.
// A group and an identity whose server-set outputs (verified, resourceLimits, lastSeenTime) are exported, and,
// when configured, a group and an identity made elsewhere, read with X.get and never managed.
const pulumi = require("@pulumi/pulumi");
const { Group, Identity } = require("platform-pulumi");

const cfg = new pulumi.Config();
const orgUid = process.env.PLATFORM_ORG_UID;
const team = new Group("team", { parentUid: orgUid, name: "fields-team" });
const bot = new Identity("bot", {
  parentUid: team.uid,
  name: "bot",
  claimMatch: { issuer: cfg.get("issuer") ?? "https://token.actions.githubusercontent.com", subject: "repo:o/r:ref:refs/heads/main" },
});
const out = { teamUid: team.uid, botUid: bot.uid, verified: team.verified, resourceLimits: team.resourceLimits, lastSeenTime: bot.lastSeenTime };

const existingGroupUid = cfg.get("existingGroupUid");
if (existingGroupUid) {
  const g = Group.get("existing-group", existingGroupUid);
  Object.assign(out, {
    existingGroup: pulumi.all([g.uid, g.name, g.description, g.verified, g.resourceLimits]).apply(([uid, name, description, verified, resourceLimits]) => ({ uid, name, description, verified, resourceLimits })),
    existingIsGroup: Group.isInstance(g) && !Identity.isInstance(g),
  });
}
const existingIdentityUid = cfg.get("existingIdentityUid");
if (existingIdentityUid) {
  const i = Identity.get("existing-identity", existingIdentityUid);
  out.existingIdentity = pulumi.all([i.name, i.parentUid, i.claimMatch, i.lastSeenTime]).apply(([name, parentUid, claimMatch, lastSeenTime]) => ({ name, parentUid, claimMatch, lastSeenTime }));
}
module.exports = out;
