// Many sibling groups (created in parallel), and optionally one adopted group.
const pulumi = require("@pulumi/pulumi");
const { Group } = require("platform-pulumi");

const cfg = new pulumi.Config();
const orgUid = process.env.PLATFORM_ORG_UID;
const n = cfg.getNumber("count") ?? 10;
for (let i = 0; i < n; i++) new Group(`g-${i}`, { parentUid: orgUid, name: `many-${String(i).padStart(3, "0")}` });
const adopt = cfg.get("adoptUid");
if (adopt) new Group("adopted", { parentUid: orgUid, name: "adopted-by-pulumi", description: "now managed", adoptUid: adopt });
