// `count` identical objects of one kind (config `kind`: invites, bindings or identities) under one group: the
// group "team" this stack makes, or the existing group of config `groupUid` (two stacks sharing one group).
const pulumi = require("@pulumi/pulumi");
const { Group, GroupInvite, Identity, RoleBinding, getRoles } = require("platform-pulumi");

module.exports = async () => {
  const cfg = new pulumi.Config();
  const orgUid = process.env.PLATFORM_ORG_UID;
  const kind = cfg.require("kind");
  const n = cfg.getNumber("count") ?? 5;
  const [viewer] = await getRoles({ name: "viewer" });
  const groupUid = cfg.get("groupUid") ?? new Group("team", { parentUid: orgUid, name: "team", description: "identical children" }).uid;
  const bot = cfg.get("botUid") ?? new Identity("bot", {
    parentUid: groupUid,
    name: "bot",
    claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/my-repo:ref:refs/heads/main" },
  }).uid;
  const made = [];
  for (let i = 0; i < n; i++) {
    if (kind === "invites") made.push(new GroupInvite(`invite-${i}`, { parentUid: groupUid, roleUid: viewer.uid, ttl: "72h" }));
    else if (kind === "bindings") made.push(new RoleBinding(`binding-${i}`, { groupUid, identityUid: bot, roleUid: viewer.uid }));
    else if (kind === "identities") {
      made.push(new Identity(`twin-${i}`, {
        parentUid: groupUid,
        name: "twin",
        description: "one of identical twins",
        claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/twins:ref:refs/heads/main" },
      }));
    } else throw new Error(`config kind: "${kind}" is not one of invites, bindings, identities`);
  }
  return {
    groupUid,
    botUid: bot,
    uids: made.map((r) => r.uid),
    ...(kind === "invites" ? { codes: pulumi.secret(made.map((r) => r.code)) } : {}),
  };
};
