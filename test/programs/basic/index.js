// Engine-test program, written as a user would: the package by name, config for what the test varies.
const pulumi = require("@pulumi/pulumi");
const { Group, Identity, RoleBinding, getRoles } = require("platform-pulumi");

module.exports = async () => {
  const cfg = new pulumi.Config();
  const orgUid = new pulumi.Config("platform").get("orgUid") ?? process.env.PLATFORM_ORG_UID;
  const [viewer] = await getRoles({ name: "viewer" });
  const team = new Group("team", { parentUid: orgUid, name: cfg.get("teamName") ?? "team", description: cfg.get("description") ?? "first" });
  const sub = new Group("sub", { parentUid: team.uid, name: "sub", description: "a subgroup" });
  const bot = new Identity("bot", {
    parentUid: sub.uid,
    name: "bot",
    claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/my-repo:ref:refs/heads/main" },
  });
  const binding = new RoleBinding("bot-viewer", { groupUid: team.uid, identityUid: bot.uid, roleUid: viewer.uid });
  return { teamUid: team.uid, subUid: sub.uid, botUid: bot.uid, bindingRole: binding.role.apply((r) => r.name) };
};
