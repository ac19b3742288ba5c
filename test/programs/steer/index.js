// A small org and the pull requests of docs/policy.md "What the gate trusts": each binds the CI identity `ci`
// (at the root group) as owner or editor at the root, and most try to hide it from the gate. STEER selects one:
//   (unset)   the org: a group and the CI identity;
//   honest    a RoleBinding, owner at the root;
//   baseline  the same binding, and the program rewrites the gate's baseline file so that it already holds it;
//   output    the same binding, and the program replaces the pack's results in the gate's folder after the pack
//             wrote them (a detached process) and adds a file of its own;
//   dynamic   the binding made by a raw dynamic resource's create (only at `pulumi up`);
//   dryrun    editor at the root declared only when not previewing (pulumi.runtime.isDryRun());
//   dryrun-owner  owner at the root, the same way;
//   write     a direct API call during the program, with whatever token the job has.
const fs = require("node:fs");
const { spawn } = require("node:child_process");
const pulumi = require("@pulumi/pulumi");
const { Group, Identity, RoleBinding, getRolesOutput } = require("platform-pulumi");

const root = process.env.PLATFORM_ORG_UID;
const api = process.env.PLATFORM_API_URL;
const steer = process.env.STEER || "";

async function call(method, url, body) {
  const r = await fetch(`${api}${url}`, { method, headers: { authorization: `Bearer ${process.env.PLATFORM_TOKEN}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: r.status, body: await r.json().catch(() => ({})) };
}

async function ownerRoleUid() {
  return (await call("GET", "/iam/v2beta1/roles?name=owner")).body.roles[0].uid;
}

module.exports = (async () => {
  const out = {};
  if (steer === "baseline" && process.env.PLATFORM_GATE_BASELINE) {
    // The gate's baseline, rewritten before any policy reads it: the binding "was already there".
    const file = process.env.PLATFORM_GATE_BASELINE;
    const b = JSON.parse(fs.readFileSync(file, "utf8"));
    const ci = b.objects.find((o) => o.kind === "Identity" && o.props.name === "ci-deployer");
    const stack = pulumi.getStack();
    b.objects.push({
      kind: "RoleBinding",
      urn: `urn:pulumi:${stack}::steer::pulumi-nodejs:dynamic/platform:RoleBinding::ci-owner`,
      name: "ci-owner",
      props: { uid: `${root}/0123456789abcdef`, identityUid: ci.props.uid, roleUid: await ownerRoleUid(), groupUid: root, role: { name: "owner" } },
    });
    fs.writeFileSync(file, JSON.stringify(b));
  }
  if (steer === "output" && process.env.PLATFORM_GATE_OUT) {
    const dir = process.env.PLATFORM_GATE_OUT;
    fs.writeFileSync(`${dir}/silenced-no-new-access.jsonl`, `${JSON.stringify({ policy: "no-new-access", identity: { name: "ci-deployer", path: "/ci-deployer", uid: null }, capability: "*", group: "/", severity: "critical", reason: "approved", expires: "2099-12-31" })}\n`);
    const watcher = `const fs=require("fs");const f=${JSON.stringify(`${dir}/access.json`)};const end=Date.now()+120000;
      (function tick(){try{if(fs.existsSync(f)&&fs.readFileSync(f,"utf8")!=='{"changes":[]}')fs.writeFileSync(f,'{"changes":[]}');}catch{}
      if(Date.now()<end&&fs.existsSync(${JSON.stringify(dir)}))setTimeout(tick,5);})();`;
    spawn(process.execPath, ["-e", watcher], { detached: true, stdio: "ignore" }).unref();
  }
  if (steer === "write") out.wrote = (await call("POST", `/iam/v2beta1/roleBindings/${root}`, { identityUid: process.env.CI_UID, roleUid: await ownerRoleUid() })).status;

  new Group("apps", { parentUid: root, name: "apps", description: "the apps" });
  const ci = new Identity("ci", { parentUid: root, name: "ci-deployer", description: "deploys from CI", claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:my-org/app:ref:refs/heads/main" } });
  const role = (name) => getRolesOutput({ name }).apply((r) => r[0].uid);
  if (["honest", "baseline", "output"].includes(steer)) new RoleBinding("ci-owner", { groupUid: root, identityUid: ci.uid, roleUid: role("owner") });
  if (steer === "dynamic") {
    const provider = {
      async create(inputs) {
        const r = await fetch(`${process.env.PLATFORM_API_URL}/iam/v2beta1/roleBindings/${inputs.groupUid}`, {
          method: "POST",
          headers: { authorization: `Bearer ${process.env.PLATFORM_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ identityUid: inputs.identityUid, roleUid: inputs.roleUid }),
        });
        return { id: (await r.json()).uid, outs: {} };
      },
    };
    new pulumi.dynamic.Resource(provider, "sneak", { groupUid: root, identityUid: ci.uid, roleUid: role("owner") });
  }
  if (steer === "dryrun" && !pulumi.runtime.isDryRun()) new RoleBinding("ci-editor", { groupUid: root, identityUid: ci.uid, roleUid: role("editor") });
  if (steer === "dryrun-owner" && !pulumi.runtime.isDryRun()) new RoleBinding("ci-owner", { groupUid: root, identityUid: ci.uid, roleUid: role("owner") });
  out.ciUid = ci.uid;
  return out;
})();
