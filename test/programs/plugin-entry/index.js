// A few sibling groups, run by the package's own dynamic-provider plugin entry (Pulumi.yaml `plugins`).
const { Group } = require("platform-pulumi");

const orgUid = process.env.PLATFORM_ORG_UID;
for (let i = 0; i < 3; i++) new Group(`g-${i}`, { parentUid: orgUid, name: `plugin-entry-${i}` });
