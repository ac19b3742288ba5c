// One group per name in config `names` (a JSON list); the first one's description is config `description`.
// Changing both between two ups gives one create, one update and one delete (test/engine-events.test.ts).
const pulumi = require("@pulumi/pulumi");
const { Group } = require("platform-pulumi");

const cfg = new pulumi.Config();
const orgUid = process.env.PLATFORM_ORG_UID;
const names = cfg.getObject("names") ?? ["a", "b"];
names.forEach((name, i) => new Group(name, { parentUid: orgUid, name: `steps-${name}`, ...(i === 0 ? { description: cfg.get("description") ?? "one" } : {}) }));
