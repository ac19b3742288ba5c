// A chain of groups, each under the previous one, so the creates run one after another (a long apply).
const pulumi = require("@pulumi/pulumi");
const { Group, getRoles } = require("platform-pulumi");

module.exports = async () => {
  const n = new pulumi.Config().getNumber("length") ?? 10;
  await getRoles({ name: "viewer" }); // the program itself also authenticates through the exchange
  let parent = process.env.PLATFORM_ORG_UID;
  let last;
  for (let i = 0; i < n; i++) {
    last = new Group(`link-${i}`, { parentUid: parent, name: `link-${String(i).padStart(3, "0")}` });
    parent = last.uid;
  }
  return { lastUid: last.uid };
};
