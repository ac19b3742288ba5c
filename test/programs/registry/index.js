// Engine-test program, written as a user would: the package by name, config for what the test varies.
const pulumi = require("@pulumi/pulumi");
const { Group, Repo, Tag, Overlay, OverlayBinding, Subscription } = require("platform-pulumi");

module.exports = async () => {
  const cfg = new pulumi.Config();
  const orgUid = new pulumi.Config("platform").get("orgUid") ?? process.env.PLATFORM_ORG_UID;
  const team = new Group("registry-team", { parentUid: orgUid, name: "registry-team", description: "owns the images" });
  const app = new Repo("app", {
    parentUid: team.uid,
    name: "app",
    description: cfg.get("repoDescription") ?? "the app image",
    aliases: ["app-alias"],
    catalogTier: "CATALOG_TIER_APPLICATION",
    customOverlay: { contents: { packages: ["ca-certificates"] }, environment: { MODE: "prod" } },
    readme: cfg.get("readme") ?? "# app\n",
  });
  // Synced from the first repo: inherits its aliases, tier and README, so none is declared here.
  const mirror = new Repo("mirror", { parentUid: team.uid, name: "app-mirror", syncConfig: { source: app.uid } });
  const latest = new Tag("app-latest", { repoUid: app.uid, name: "latest", digest: cfg.get("digest") ?? `sha256:${"a".repeat(64)}` });
  const tools = new Overlay("tools", { parentUid: team.uid, name: "debug-tools", config: { contents: { packages: cfg.getObject("packages") ?? ["curl", "jq"] } } });
  const binding = new OverlayBinding("app-tools", { repoUid: app.uid, overlay: tools.uid, tags: cfg.getObject("bindingTags") ?? ["latest"] });
  const hook = new Subscription("audit-hook", { parentUid: team.uid, sink: cfg.get("sink") ?? "https://hooks.example.com/platform" });
  return {
    teamUid: team.uid,
    appUid: app.uid,
    mirrorUid: mirror.uid,
    mirrorSource: mirror.syncState.apply((s) => s && s.source),
    tagUid: latest.uid,
    overlayUid: tools.uid,
    bindingUid: binding.uid,
    bindingOverlayUid: binding.overlayUid,
    hookUid: hook.uid,
  };
};
