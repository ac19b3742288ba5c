// 10 top-level groups with 4 subgroups each (50 groups), one identity per group, one binding per identity.
// mode=real uses platform-pulumi against the API; mode=noop declares the same graph with a dynamic provider whose
// methods return at once (stored as a minimal provider text, like ours), so the difference between the two runs
// is what this provider and its API calls add to the engine's own cost.
const pulumi = require("@pulumi/pulumi");

const cfg = new pulumi.Config();
const mode = cfg.require("mode");
const orgUid = process.env.PLATFORM_ORG_UID;
const roleUid = cfg.require("roleUid");

let Group, Identity, RoleBinding;
if (mode === "real") {
  ({ Group, Identity, RoleBinding } = require("platform-pulumi"));
} else {
  // The floor: a provider that does nothing, stored as a few lines of code (so its state is as small as ours);
  // the dynamic-provider plugin evaluates the text and calls handler().
  const source = [
    "exports.handler = () => ({",
    "  check: async (olds, news) => ({ inputs: news }),",
    "  diff: async () => ({ changes: false }),",
    "  create: async (inputs) => { const id = Date.now().toString(16) + Math.random().toString(16).slice(2); return { id, outs: { ...inputs, uid: id } }; },",
    "  read: async (id, props) => ({ id, props }),",
    "  update: async (id, olds, news) => ({ outs: { ...olds, ...news } }),",
    "  delete: async () => {},",
    "});",
  ].join("\n");
  const kind = (type) => class extends pulumi.CustomResource {
    constructor(name, args, opts) { super(`pulumi-nodejs:dynamic/noop:${type}`, name, { uid: undefined, ...args, __provider: source }, opts); }
  };
  Group = kind("Group"); Identity = kind("Identity"); RoleBinding = kind("RoleBinding");
}

const claimMatch = { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/app:ref:refs/heads/main" };
for (let t = 0; t < 10; t++) {
  const top = new Group(`team-${t}`, { parentUid: orgUid, name: `team-${t}`, description: "bench" });
  const groups = [top];
  for (let s = 0; s < 4; s++) groups.push(new Group(`team-${t}-sub-${s}`, { parentUid: top.uid, name: `sub-${s}`, description: "bench" }));
  groups.forEach((g, i) => {
    const id = new Identity(`bot-${t}-${i}`, { parentUid: g.uid, name: `bot-${i}`, description: "bench", claimMatch });
    new RoleBinding(`bind-${t}-${i}`, { groupUid: g.uid, identityUid: id.uid, roleUid });
  });
}
