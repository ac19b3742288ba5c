// Authenticates only through workload identity: PLATFORM_IDENTITY + PLATFORM_IDENTITY_TOKEN(_FILE), no API token.
const pulumi = require("@pulumi/pulumi");
const { Group, getGroups } = require("platform-pulumi");

module.exports = async () => {
  const cfg = new pulumi.Config();
  const groupUid = cfg.require("groupUid");
  const visible = await getGroups({ descendantsOf: groupUid });
  if (cfg.getBoolean("tryWrite")) new Group("not-allowed", { parentUid: groupUid, name: "created-by-ci" });
  return { visibleGroups: visible.map((g) => g.name) };
};
