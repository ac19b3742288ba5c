// The soak program (bench/soak.ts). Config: shape = "org" (groups nested two deep, an identity and a viewer
// binding per group) or "invites" (groups, each with an account association and invites); tops = top-level
// groups; subs = subgroups per top group; invites = invites per group. Every stack of this project declares the
// same names under the same root, as two teams' stacks would.
const pulumi = require("@pulumi/pulumi");
const { Group, Identity, RoleBinding, AccountAssociation, GroupInvite, getRoles } = require("platform-pulumi");

module.exports = async () => {
  const cfg = new pulumi.Config();
  const orgUid = process.env.PLATFORM_ORG_UID;
  const shape = cfg.get("shape") ?? "org";
  const tops = cfg.getNumber("tops") ?? 4;
  const [viewer] = await getRoles({ name: "viewer" });
  let count = 0;
  if (shape === "org") {
    const subs = cfg.getNumber("subs") ?? 2;
    const claimMatch = { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/app:ref:refs/heads/main" };
    for (let t = 0; t < tops; t++) {
      const top = new Group(`team-${t}`, { parentUid: orgUid, name: `team-${t}`, description: "soak" });
      const groups = [top];
      for (let s = 0; s < subs; s++) groups.push(new Group(`team-${t}-sub-${s}`, { parentUid: top.uid, name: `sub-${s}`, description: "soak" }));
      groups.forEach((g, i) => {
        const bot = new Identity(`bot-${t}-${i}`, { parentUid: g.uid, name: `bot-${i}`, description: "soak", claimMatch });
        new RoleBinding(`bind-${t}-${i}`, { groupUid: g.uid, identityUid: bot.uid, roleUid: viewer.uid });
        count += 3;
      });
    }
  } else {
    const invites = cfg.getNumber("invites") ?? 3;
    for (let t = 0; t < tops; t++) {
      const g = new Group(`inv-${t}`, { parentUid: orgUid, name: `inv-${t}`, description: "soak" });
      new AccountAssociation(`assoc-${t}`, { groupUid: g.uid, name: `assoc-${t}`, description: "soak", amazon: { account: `12345678900${t}` } });
      for (let k = 0; k < invites; k++) {
        new GroupInvite(`invite-${t}-${k}`, { parentUid: g.uid, roleUid: viewer.uid, ttl: "72h", email: `user${k}@example.com` });
      }
      count += 2 + invites;
    }
  }
  return { count };
};
