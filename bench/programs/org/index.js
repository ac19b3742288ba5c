// The benchmark org at any size (config `size`, resources, a multiple of 15; default 150): groups nested four deep
// (see shape.js), one identity per group and one binding of it in its group.
// config `part` lays the same org out as a set of stacks (bench/split.ts): part=root declares the top groups and
// exports their uids (`uids`); part=child declares everything under the top groups of its bucket (top group i is in
// bucket i % `buckets`), reading their uids from the root stack (config `rootStack`) through a StackReference.
// mode=real uses platform-pulumi against the API; mode=noop declares the same graph with a dynamic provider whose
// methods return at once (stored as a minimal provider text, like ours), so the difference between the two runs
// is what this provider and its API calls add to the engine's own cost. mode=native declares the same graph by type
// token (platform:iam:Group, …) as raw CustomResources served by the native provider plugin
// (plugin/pulumi-resource-platform, named in Pulumi.yaml): no class of this package is loaded (bench/native.ts).
const pulumi = require("@pulumi/pulumi");
const { orgGroups } = require("./shape");

const cfg = new pulumi.Config();
const mode = cfg.require("mode");
const size = cfg.getNumber("size") ?? 150;
const orgUid = process.env.PLATFORM_ORG_UID;
const roleUid = cfg.require("roleUid");

let Group, Identity, RoleBinding;
if (mode === "real") {
  ({ Group, Identity, RoleBinding } = require("platform-pulumi"));
} else if (mode === "native") {
  // The native plugin's kinds by type token, their server-set outputs named so they are read back (`group.uid`).
  const kind = (token) => class extends pulumi.CustomResource {
    constructor(name, args, opts) { super(token, name, { uid: undefined, createTime: undefined, updateTime: undefined, ...args }, opts); }
  };
  Group = kind("platform:iam:Group"); Identity = kind("platform:iam:Identity"); RoleBinding = kind("platform:iam:RoleBinding");
} else {
  // The floor: a provider that does nothing, stored as a few lines of code (noop.js).
  const { source } = require("./noop");
  const kind = (type) => class extends pulumi.CustomResource {
    constructor(name, args, opts) { super(`pulumi-nodejs:dynamic/noop:${type}`, name, { uid: undefined, ...args, __provider: source }, opts); }
  };
  Group = kind("Group"); Identity = kind("Identity"); RoleBinding = kind("RoleBinding");
}

const part = cfg.get("part");
const buckets = cfg.getNumber("buckets") ?? 1;
const bucket = cfg.getNumber("bucket") ?? 0;
/** The top group a group lives under: `team-<t>` of `team-<t>-a-c`. */
const topOf = (key) => key.split("-").slice(0, 2).join("-");
const inBucket = (key) => Number(topOf(key).split("-")[1]) % buckets === bucket;
const rootUids = part === "child" ? new pulumi.StackReference(cfg.require("rootStack")).requireOutput("uids") : undefined;

const claimMatch = { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/app:ref:refs/heads/main" };
const declared = new Map();
if (part === "root") {
  const uids = {};
  for (const g of orgGroups(size).filter((x) => x.parent === undefined)) uids[g.key] = new Group(g.key, { parentUid: orgUid, name: g.name, description: "bench" }).uid;
  module.exports = { uids };
}
for (const g of orgGroups(size)) {
  if (part === "root" || (part === "child" && !inBucket(g.key))) continue;
  if (part === "child" && g.parent === undefined) {
    // Declared by the root stack: its uid comes from there.
    const group = { uid: rootUids.apply((u) => u[g.key]) };
    declared.set(g.key, group);
    const id = new Identity(`bot-${g.key}`, { parentUid: group.uid, name: "bot", description: "bench", claimMatch });
    new RoleBinding(`bind-${g.key}`, { groupUid: group.uid, identityUid: id.uid, roleUid });
    continue;
  }
  const parentUid = g.parent === undefined ? orgUid : declared.get(g.parent).uid;
  const group = new Group(g.key, { parentUid, name: g.name, description: "bench" });
  declared.set(g.key, group);
  const id = new Identity(`bot-${g.key}`, { parentUid: group.uid, name: "bot", description: "bench", claimMatch });
  new RoleBinding(`bind-${g.key}`, { groupUid: group.uid, identityUid: id.uid, roleUid });
}
