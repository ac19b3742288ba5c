// Wires an identity and a subgroup to their group by a plain string from config (no dependency the engine can
// see), so a destroy deletes the group in parallel with its children.
const pulumi = require("@pulumi/pulumi");
const { Group, Identity } = require("platform-pulumi");

const cfg = new pulumi.Config();
const orgUid = process.env.PLATFORM_ORG_UID;
const team = new Group("team", { parentUid: orgUid, name: "strings-team" }, { customTimeouts: { delete: cfg.get("deleteTimeout") ?? "2m" } });
const parentString = cfg.get("teamUid"); // set after the first up, from the output below
if (parentString) {
  new Identity("bot", { parentUid: parentString, name: "bot", claimMatch: { issuer: "https://ci.example", subject: "job" } });
  new Group("sub", { parentUid: parentString, name: "sub" });
}
module.exports = { teamUid: team.uid };
