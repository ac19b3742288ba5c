// A few sibling groups, run by the CLI's bundled dynamic-provider plugin (Pulumi.yaml declares none).
const { Group } = require("platform-pulumi");

const orgUid = process.env.PLATFORM_ORG_UID;
for (let i = 0; i < 3; i++) new Group(`g-${i}`, { parentUid: orgUid, name: `plugin-default-${i}` });
