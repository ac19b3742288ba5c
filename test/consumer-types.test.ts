/**
 * The package's public declarations compile in a project made by `pulumi new typescript`: strict,
 * no `esModuleInterop`, no `skipLibCheck`. A tiny consumer is written to a temporary folder with that template
 * tsconfig, the package is installed there as it would be from the tarball (its package.json and `dist`; the
 * built `dist` of this repository, so run `npm run build` first), and this repository's `tsc --noEmit` must
 * report no error at all. This is the fast in-repo guard; the tarball-based consumer tier is built elsewhere.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KIND_NAMES } from "../provider/kinds/registry";

const REPO = path.resolve(__dirname, "..");
const TSC = require.resolve("typescript/bin/tsc", { paths: [REPO] });

/** `pulumi new typescript`'s tsconfig.json, verbatim. */
const TEMPLATE_TSCONFIG = {
  compilerOptions: {
    strict: true,
    outDir: "bin",
    target: "es2020",
    module: "commonjs",
    moduleResolution: "node",
    sourceMap: true,
    experimentalDecorators: true,
    pretty: true,
    noFallthroughCasesInSwitch: true,
    noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * A consumer project holding `source` as index.ts, with `platform-pulumi` installed as the tarball would lay it
 * out (package.json + dist) and the template's dependencies (@pulumi/pulumi, @types/node) from this repository.
 */
function consumer(source: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "consumer-types-"));
  dirs.push(dir);
  const pkg = path.join(dir, "node_modules", "platform-pulumi");
  mkdirSync(pkg, { recursive: true });
  copyFileSync(path.join(REPO, "package.json"), path.join(pkg, "package.json"));
  symlinkSync(path.join(REPO, "dist"), path.join(pkg, "dist"), "dir");
  symlinkSync(path.join(REPO, "node_modules", "@pulumi"), path.join(dir, "node_modules", "@pulumi"), "dir");
  symlinkSync(path.join(REPO, "node_modules", "@types"), path.join(dir, "node_modules", "@types"), "dir");
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(TEMPLATE_TSCONFIG, null, 2));
  writeFileSync(path.join(dir, "index.ts"), source);
  return dir;
}

/** `tsc --noEmit -p <dir>`: its diagnostics, one per line (empty when it compiles). */
function tsc(dir: string): Promise<string[]> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, "--noEmit", "-p", dir, "--pretty", "false"], { cwd: dir }, (_err, stdout, stderr) => {
      resolve(`${stdout}${stderr}`.split("\n").filter((l) => /error TS\d+/.test(l)));
    });
  });
}

describe("the public types under Pulumi's template tsconfig (strict, no esModuleInterop, no skipLibCheck)", () => {
  it("a program using resources (a class of every kind of the kind registry), lookups, errors and the client compiles with zero errors; lookup fields lift to typed Outputs", async () => {
    const source = `
import * as pulumi from "@pulumi/pulumi";
import {
  Group, Identity, Role, RoleBinding, IdentityProvider, AccountAssociation, GroupInvite,
  getRoleOutput, getGroupOutput, getIdentity, getRoleBindingOutput, PlatformClient, PlatformError, ApiError,
  type ApiGroup, type ApiIdentity, type ApiRole,
  Repo, Tag, Overlay, OverlayBinding, Subscription, getOverlayOutput, getSubscriptions, type ApiRepo,
} from "platform-pulumi";
import * as runtime from "platform-pulumi/dist/provider/runtime";

const orgUid = "0".repeat(40);
const team = new Group("team", { parentUid: orgUid, name: "team" });
const bot = new Identity("bot", { parentUid: team.uid, name: "bot", claimMatch: { issuer: "https://issuer.example", subjectPattern: "^repo:o/r:.*$" } });
const r: pulumi.Input<string> = getRoleOutput({ name: "viewer" }).uid;
const binding = new RoleBinding("b", { groupUid: team.uid, identityUid: bot.uid, roleUid: getRoleOutput({ name: "viewer" }).uid });
export const roleName: pulumi.Output<string> = binding.role.name;
export const parentName: pulumi.Output<string> = getGroupOutput({ uid: orgUid }).name;
export const verified: pulumi.Output<boolean> = team.verified;
export const repoLimit: pulumi.Output<number | undefined> = team.resourceLimits.apply((l) => l.repositories);
export const lastSeen: pulumi.Output<string> = bot.lastSeenTime;
export const bindingRole: pulumi.Output<string> = getRoleBindingOutput({ uid: "x" }).apply((b) => b.role?.name ?? "");
const existing: Group = Group.get("existing", orgUid);
export const same: boolean = Group.isInstance(existing) && !Identity.isInstance(existing);
const auditor = new Role("auditor", { parentUid: team.uid, name: "auditor", capabilities: ["groups.list"] });
new IdentityProvider("okta", { parentUid: team.uid, name: "okta", oidc: { issuer: "https://example.okta.com", clientId: "c" }, clientSecret: pulumi.secret("s") });
new AccountAssociation("aws", { groupUid: team.uid, name: "aws", amazon: { account: "123456789012" } });
export const inviteCode: pulumi.Output<string> = new GroupInvite("invite", { parentUid: team.uid, roleUid: auditor.uid, ttl: "72h" }).code;
const gets = [Role.get, RoleBinding.get, IdentityProvider.get, AccountAssociation.get, GroupInvite.get, Repo.get, Tag.get, Overlay.get, OverlayBinding.get, Subscription.get];
const app = new Repo("app", { parentUid: team.uid, name: "app", catalogTier: "CATALOG_TIER_BASE", customOverlay: { environment: { A: "1" } }, readme: "# app" });
const mirror = new Repo("mirror", { parentUid: team.uid, name: "mirror", syncConfig: { source: app.uid } });
export const syncedFrom: pulumi.Output<string | undefined> = mirror.syncState.apply((s) => s?.source);
new Tag("latest", { repoUid: app.uid, name: "latest", digest: "sha256:x" });
const tools = new Overlay("tools", { parentUid: team.uid, name: "tools", config: { contents: { packages: ["curl"] } } });
export const bound: pulumi.Output<string> = new OverlayBinding("b2", { repoUid: app.uid, overlay: tools.uid, tags: ["latest"] }).overlayUid;
export const sink: pulumi.Output<string> = new Subscription("hook", { parentUid: team.uid, sink: "https://h.example" }).sink;
export const packages: pulumi.Output<string[] | undefined> = getOverlayOutput({ uid: "x" }).config.apply((c) => c.contents?.packages);
export const hookCount: Promise<number> = getSubscriptions({ childrenOf: orgUid }).then((s) => s.length);
export const tier = (r: ApiRepo): string | undefined => r.catalogTier ?? r.sync_config?.source;
async function typed(): Promise<string> {
  const i: ApiIdentity = await getIdentity({ uid: "x" });
  const g: ApiGroup = { uid: "u", name: "n", description: "", verified: false, resourceLimits: {} };
  const role: ApiRole | undefined = undefined;
  try {
    await new PlatformClient({ apiUrl: "http://127.0.0.1:1", token: "t" }).groups.get(g.uid);
  } catch (e) {
    if (e instanceof ApiError) return e.request.method;
    if (e instanceof PlatformError) return e.message;
  }
  return i.lastSeenTime + String(role) + String(gets.length) + String(r) + typeof runtime.provider;
}
void typed;
`;
    // Every kind of the registry is declared (new) here, or the test names the kinds it misses.
    expect(KIND_NAMES.filter((kind) => !new RegExp(`\\bnew ${kind}\\(`).test(source)), "kinds of the registry this program does not declare").toEqual([]);
    const dir = consumer(source);
    expect(await tsc(dir)).toEqual([]);
  }, 120_000);

  it("a plain interface, not an index signature, types lookup results (a typo is a compile error, not unknown)", async () => {
    const dir = consumer(`
import * as pulumi from "platform-pulumi";
export const x = pulumi.getRoleOutput({ name: "viewer" }).nmae;
`);
    const errors = await tsc(dir);
    expect(errors.join("\n")).toMatch(/TS2339: Property 'nmae' does not exist/);
  }, 120_000);

  // The emulator's public declarations stand on plain interfaces (`Emulator.issuer` is an `OidcTestIssuer`), so
  // they never reach fastify's types, whose logger types (pino) need `esModuleInterop` (TS1259).
  it("the emulator's declarations compile too", async () => {
    const dir = consumer(`
import { startEmulator, type Emulator } from "platform-pulumi/dist/emulator";
export async function main(): Promise<string> {
  const emu: Emulator = await startEmulator();
  const oidc: string = await emu.issuer.mint("repo:my-org/app:ref:refs/heads/main");
  await emu.close();
  return emu.url + oidc.length;
}
`);
    expect(await tsc(dir)).toEqual([]);
  }, 120_000);
});
