// Engine-test program, written as a user migrating would: first the package's Group class (a dynamic resource),
// then, with `native` set, the same group as the native plugin's platform:iam:Group with one alias to the dynamic
// type token (docs/native.md "Migrating a stack from the dynamic resources").
const pulumi = require("@pulumi/pulumi");
const cfg = new pulumi.Config();
const root = process.env.PLATFORM_ORG_UID;
const args = { parentUid: root, name: "migrate-team", description: "moves to the plugin" };
let team;
if (cfg.getBoolean("native")) {
  team = new pulumi.CustomResource(
    "platform:iam:Group",
    "team",
    { ...args, uid: undefined, createTime: undefined, updateTime: undefined },
    { aliases: [{ type: "pulumi-nodejs:dynamic/platform:Group" }] },
  );
} else {
  const { Group } = require("platform-pulumi");
  team = new Group("team", args);
}
module.exports = { teamUid: team.uid };
