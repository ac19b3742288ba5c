// `count` identical objects of each kind of config `kind` (invites, bindings or identities, or several joined by
// commas) under one group: the group "team" this stack makes, or the existing group of config `groupUid` (two
// stacks sharing one group).
const pulumi = require("@pulumi/pulumi");
const { Group, GroupInvite, Identity, RoleBinding, getRoles } = require("platform-pulumi");

module.exports = async () => {
  const cfg = new pulumi.Config();
  const orgUid = process.env.PLATFORM_ORG_UID;
  const kinds = cfg.require("kind").split(",");
  const n = cfg.getNumber("count") ?? 5;
  const [viewer] = await getRoles({ name: "viewer" });
  const groupUid = cfg.get("groupUid") ?? new Group("team", { parentUid: orgUid, name: "team", description: "identical children" }).uid;
  const bot = cfg.get("botUid") ?? new Identity("bot", {
    parentUid: groupUid,
    name: "bot",
    claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/my-repo:ref:refs/heads/main" },
  }).uid;
  const made = [];
  const invites = [];
  for (const kind of kinds) for (let i = 0; i < n; i++) {
    if (kind === "invites") {
      const invite = new GroupInvite(`invite-${i}`, { parentUid: groupUid, roleUid: viewer.uid, ttl: "72h" });
      invites.push(invite);
      made.push(invite);
    }
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
    ...(kinds.includes("invites") ? { codes: pulumi.secret(invites.map((r) => r.code)) } : {}),
  };
};
