/**
 * README claims (and docs/architecture.md's) that are numbers or lists, checked against the code: the emulator's flags, the size of the
 * provider text each resource stores, the files the README points to inside the installed package, and the kinds
 * package.json's description names. A README edit that drifts from the code fails here.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { usage } from "../emulator/cli";
import { KINDS as KIND_ENTRIES } from "../provider/resources/registry";
import { providerSource, type ResourceKind } from "../provider/resources/shim";
import { REPO_ROOT } from "../scripts/lib/pulumi";

const README = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
const ARCHITECTURE = readFileSync(path.join(REPO_ROOT, "docs", "architecture.md"), "utf8");
const PKG = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { description: string };
const KINDS: ResourceKind[] = [
  "Group", "Identity", "Role", "RoleBinding", "IdentityProvider", "AccountAssociation", "GroupInvite",
  "Repo", "Tag", "Overlay", "OverlayBinding", "Subscription",
];

describe("README claims", () => {
  it("every policy option the policy table says to configure is in policies/config.example.json", () => {
    const example = JSON.parse(readFileSync(path.join(REPO_ROOT, "policies", "config.example.json"), "utf8")) as Record<string, Record<string, unknown>>;
    const rows = README.split("\n").filter((l) => /^\| `[a-z-]+` \|/.test(l));
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) {
      const policy = /^\| `([a-z-]+)`/.exec(row)![1]!;
      for (const m of row.matchAll(/configure `([A-Za-z]+)`/g)) expect(example[policy] ?? {}, `${policy}: ${m[1]}`).toHaveProperty(m[1]!);
    }
  });

  it("names every kind whose create carries the ownership marker (and so costs one PATCH)", () => {
    const sentence = /Groups, identities,[^.]*? are created with an ownership marker/s.exec(README)?.[0];
    expect(sentence, "the Resources section's sentence on the ownership marker").toBeDefined();
    const spelled: Record<string, string> = {
      Group: "groups", Identity: "identities", Role: "roles", IdentityProvider: "identity providers", AccountAssociation: "account associations", Repo: "repos",
    };
    const marked = KIND_ENTRIES.filter((k) => k.ownership.proof === "marker").map((k) => k.kind);
    expect(marked.sort()).toEqual(Object.keys(spelled).sort());
    for (const k of marked) expect(sentence!.replace(/\s+/g, " ").toLowerCase(), k).toContain(spelled[k]!);
  });

  it("lists exactly the emulator's flags (its --help)", () => {
    const fromHelp = new Set([...usage().matchAll(/^\s+(--[a-z-]+)/gm)].map((m) => m[1]!));
    const para = README.split("\n\n").find((p) => p.includes("lists the options:"));
    expect(para, "the Emulator section's paragraph that lists the options").toBeDefined();
    const fromReadme = new Set([...para!.matchAll(/`(--[a-z-]+)/g)].map((m) => m[1]!));
    // `--seed-groups|--seed-repos|…` is one code span of several flags.
    for (const m of para!.matchAll(/`([^`]*\|[^`]*)`/g)) for (const f of m[1]!.matchAll(/--[a-z-]+/g)) fromReadme.add(f[0]);
    expect([...fromReadme].sort()).toEqual([...fromHelp].sort());
  });

  it("gives the byte range of the provider text each resource stores", () => {
    const sizes = KINDS.map((k) => Buffer.byteLength(providerSource(k)));
    const m = /The result: (\d+)–(\d+) bytes per\s+resource/.exec(ARCHITECTURE);
    expect(m, "docs/architecture.md's sentence with the stored provider's size").not.toBeNull();
    expect([Number(m![1]), Number(m![2])]).toEqual([Math.min(...sizes), Math.max(...sizes)]);
  });

  it("points only at files the package ships (node_modules/platform-pulumi/…)", () => {
    const packed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--loglevel=error"], { cwd: REPO_ROOT, encoding: "utf8" })) as Array<{
      files: Array<{ path: string }>;
    }>;
    const files = packed[0]!.files.map((f) => f.path);
    const pointed = [...new Set([...README.matchAll(/node_modules\/platform-pulumi\/([\w./-]*[\w-])/g)].map((m) => m[1]!))];
    expect(pointed.length).toBeGreaterThan(0);
    for (const p of pointed) expect(files.some((f) => f === p || f.startsWith(`${p}/`)), `README points at node_modules/platform-pulumi/${p}`).toBe(true);
  });

  it("package.json's description names every resource kind", () => {
    const words = (k: string) => k.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
    for (const k of KINDS) expect(PKG.description.toLowerCase(), k).toMatch(new RegExp(`\\b${words(k)}`));
  });
});
