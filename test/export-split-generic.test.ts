/**
 * A kind on the export's generic path (docs/export.md "A kind on the generic path"; subscriptions are one) in a
 * split export, through the built bin on the emulator: each object is declared by the one stack that holds its
 * group, never by every stack of the set. Three top-level groups with a subscription each: the root stack declares
 * none and each child one ([0, 1, 1, 1]), in the TypeScript layout and in the org files of `--format yaml`; a
 * generic kind dealt out to no stack would be declared by all four ([3, 3, 3, 3]).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { runBin } from "./harness/bin";
import { cleanEnv, tail } from "./consumer/toolchain";

let emu: Emulator;
let client: PlatformClient;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), "platform-pulumi-split-generic-"));
  emu = await startEmulator({ seed: {} });
  client = new PlatformClient({ apiUrl: emu.url, token: emu.token });
  for (const name of ["alpha", "beta", "gamma"]) {
    const g = await client.groups.create(emu.orgUid, { name, description: "" });
    await client.subscriptions.create(g.uid, { sink: `https://hooks.example.com/${name}` });
  }
}, 120_000);

afterAll(async () => {
  await client?.close();
  await emu?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Exports the org as a split set in `format`; the projects in `pulumi up` order, each with the text of `file`. */
async function split(format: "ts" | "yaml", file: string): Promise<Array<[project: string, text: string]>> {
  const out = path.join(work, format, "org");
  const r = await runBin(["export", "--org", emu.orgUid, "--out", out, "--layout", "split", "--format", format], cleanEnv(undefined, { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: emu.token }));
  expect(r.code, tail(r)).toBe(0);
  const tiers = (JSON.parse(readFileSync(path.join(out, "layout.json"), "utf8")) as { tiers: string[][] }).tiers;
  return tiers.flat().map((p) => [p, readFileSync(path.join(out, p, file), "utf8")]);
}

describe("a generic kind in a split export", () => {
  it("TypeScript: each subscription is declared once, by the stack of its group ([0, 1, 1, 1])", async () => {
    const stacks = await split("ts", "index.ts");
    expect(stacks.map(([p]) => p)).toEqual(["org", "org.alpha", "org.beta", "org.gamma"]);
    expect(stacks.map(([, text]) => text.match(/^new Subscription\(/gm)?.length ?? 0)).toEqual([0, 1, 1, 1]);
    for (const [p, text] of stacks.slice(1)) expect(text, p).toContain(`sink: "https://hooks.example.com/${p.slice("org.".length)}",`);
    // The root imports only what it declares.
    expect(stacks[0]![1]).not.toMatch(/import \{[^}]*\bSubscription\b/);
  }, 120_000);

  it("--format yaml: each project's org file holds the subscriptions of its own groups only ([0, 1, 1, 1])", async () => {
    const stacks = await split("yaml", "org.yaml");
    expect(stacks.map(([, text]) => text.match(/^ {4}sink: /gm)?.length ?? 0)).toEqual([0, 1, 1, 1]);
  }, 120_000);
});
