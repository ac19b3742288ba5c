// A program that reaches the native provider by type token alone, as a Python, Go or YAML program does through
// its SDK: no class of this package is loaded here.
const pulumi = require("@pulumi/pulumi");
const cfg = new pulumi.Config();
const root = process.env.PLATFORM_ORG_UID;
const outs = { uid: undefined, createTime: undefined, updateTime: undefined };
const team = new pulumi.CustomResource("platform:iam:Group", "team", { parentUid: root, name: "native-team", description: cfg.get("desc") || "", ...outs });
const sub = new pulumi.CustomResource("platform:iam:Group", "sub", { parentUid: team.uid, name: "native-sub", description: "", ...outs });
const idp = cfg.getBoolean("idp")
  ? new pulumi.CustomResource("platform:iam:IdentityProvider", "idp", {
      parentUid: team.uid,
      name: "native-idp",
      oidc: { issuer: "https://issuer.example", clientId: "client" },
      clientSecret: cfg.requireSecret("clientSecret"),
      ...outs,
    })
  : undefined;
// A lookup through the plugin's Invoke (the schema function platform:iam:getRole).
const viewer = pulumi.output(pulumi.runtime.invoke("platform:iam:getRole", { name: "viewer" })).apply((r) => r.value.uid);
const invite = cfg.getBoolean("invite")
  ? new pulumi.CustomResource("platform:iam:GroupInvite", "invite", { parentUid: team.uid, roleUid: viewer, ttl: "72h", code: undefined, ...outs })
  : undefined;
// A workload identity bound at the team: the jobs (drift, unmanaged, access, gate, recover) read these by their
// native type tokens. `botRole` names the built-in role it is bound to (default viewer).
const bot = cfg.getBoolean("access")
  ? new pulumi.CustomResource("platform:iam:Identity", "bot", {
      parentUid: team.uid,
      name: "native-bot",
      description: "",
      claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:acme/app:ref:refs/heads/main" },
      ...outs,
    })
  : undefined;
const botRole = pulumi.output(pulumi.runtime.invoke("platform:iam:getRole", { name: cfg.get("botRole") || "viewer" })).apply((r) => r.value.uid);
if (bot) new pulumi.CustomResource("platform:iam:RoleBinding", "bot-binding", { groupUid: cfg.getBoolean("botAtRoot") ? root : team.uid, identityUid: bot.uid, roleUid: botRole, ...outs });
module.exports = {
  botUid: bot ? bot.uid : undefined,
  viewerUid: viewer,
  inviteCode: invite ? invite.code : undefined, teamUid: team.uid, subUid: sub.uid, subParent: sub.parentUid, idpUid: idp ? idp.uid : undefined };
