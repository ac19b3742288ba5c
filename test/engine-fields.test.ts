/**
 * Through the real Pulumi CLI against the emulator (test/programs/fields), as steps of the harness
 * (test/harness/steps.ts):
 * - check fails the preview, before any API call, when `platform:apiUrl` or the credentials are missing, and a
 *   failure on a nested field names the field and its real value in the CLI's own output (on the new stack,
 *   before anything exists);
 * - server-set outputs (Group.verified, Group.resourceLimits, Identity.lastSeenTime) are in the stack state and
 *   follow the server on refresh without any diff, changed behind the API by writing the emulator's store;
 * - `Group.get` / `Identity.get` read objects made elsewhere, their outputs exported, and destroy leaves them.
 */
import { expect } from "vitest";
import { errors, runEngine } from "../scripts/lib/engine";
import type { PulumiCli } from "../scripts/lib/pulumi";
import { stepTest } from "./harness/steps";

type Resource = Record<string, unknown> & { type: string; id?: string; external?: boolean; outputs?: Record<string, unknown> };

const resources = async (cli: PulumiCli): Promise<Resource[]> => ((await cli.exportState()).deployment.resources ?? []) as Resource[];
const byId = async (cli: PulumiCli, id: string) => (await resources(cli)).find((r) => r.id === id);
/** The objects made outside the stack that `Group.get` and `Identity.get` read. */
let made: { uid: string };
let ident: { uid: string };

stepTest("server fields, X.get and check failures through the real CLI", {
  program: "fields",
  stack: "fields",
  steps: [
    {
      name: "a nested check failure names the field and its real value in the CLI's output",
      config: { issuer: "http://issuer.example" },
      restoreConfig: true,
      command: "preview",
      fails: true,
      writes: [],
      check: (_t, preview) => {
        // The error diagnostic's message is the text the CLI prints for it.
        const text = errors(preview!).join("\n");
        const line = text.split("\n").find((l) => l.includes("claimMatch.issuer"));
        console.log(`CLI line for a nested check failure: ${line?.trim()}`);
        expect(line).toMatch(/resource 'bot' has a problem: claimMatch\.issuer \(value "http:\/\/issuer\.example"\): must be an https URL/);
        expect(text + preview!.stdout + preview!.stderr).not.toContain("{<nil>}");
      },
    },
    {
      name: "a missing platform:apiUrl or credential fails the preview at check, with no lookup in the program and no API call",
      command: null,
      check: async ({ cli, emu }) => {
        const since = emu.requests.length;
        const configured = await cli.run(["preview"]);
        expect(configured.code, configured.stdout + configured.stderr).toBe(0); // configured, the same preview passes

        const env = cli.opts.env ?? {};
        try {
          cli.opts.env = { ...env, PLATFORM_API_URL: "" };
          const missingUrl = await runEngine(cli, "preview");
          expect(missingUrl.code).not.toBe(0);
          expect(errors(missingUrl).join("\n")).toContain("the Platform API URL is not set: set stack config `platform:apiUrl` or the PLATFORM_API_URL environment variable");

          cli.opts.env = { ...env, PLATFORM_TOKEN: "" };
          const missingToken = await runEngine(cli, "preview");
          expect(missingToken.code).not.toBe(0);
          expect(errors(missingToken).join("\n")).toContain("no Platform API credentials: set the secret stack config `platform:token`");
        } finally {
          cli.opts.env = env;
        }
        expect(emu.requests.length).toBe(since);
      },
    },
    {
      name: "up exports verified, resourceLimits and lastSeenTime with their defaults",
      check: async ({ cli, outputs: out }) => {
        expect(out).toMatchObject({ verified: false, resourceLimits: {} });
        expect(typeof out["lastSeenTime"]).toBe("string");
        const team = await byId(cli, out["teamUid"] as string);
        expect(team?.outputs).toMatchObject({ verified: false, resourceLimits: {} });
        expect(team?.["inputs"]).not.toHaveProperty("verified");
      },
    },
    {
      name: "after lastSeenTime and verified change behind the API, refresh takes them into state and nothing shows as a change",
      before: ({ emu, outputs: out }) => {
        const identity = emu.store.identities.get(out["botUid"] as string)!;
        emu.store.identities.put({ ...identity, lastSeenTime: "2026-05-01T10:00:00.000Z" });
        const group = emu.store.groups.get(out["teamUid"] as string)!;
        emu.store.groups.put({ ...group, verified: true, resourceLimits: { repositories: 10 } });
      },
      command: "refresh",
      args: ["--expect-no-changes"],
      // That nothing then shows as a change to the program is the next step's: its up (which only adds two reads)
      // changes no resource and writes nothing.
      check: async ({ cli, outputs: out }) => {
        expect((await byId(cli, out["botUid"] as string))?.outputs).toMatchObject({ lastSeenTime: "2026-05-01T10:00:00.000Z" });
        expect((await byId(cli, out["teamUid"] as string))?.outputs).toMatchObject({ verified: true, resourceLimits: { repositories: 10 } });
        const bot = await byId(cli, out["botUid"] as string);
        expect(bot?.["inputs"]).not.toHaveProperty("lastSeenTime");
      },
    },
    {
      name: "Group.get and Identity.get read objects made elsewhere without managing them (destroy leaves them)",
      before: async (t) => {
        const { emu, client, cli } = t;
        made = await client.groups.create(emu.orgUid, { name: "made-elsewhere", description: "by hand" });
        emu.store.groups.put({ ...emu.store.groups.get(made.uid)!, verified: true });
        ident = await client.identities.create(made.uid, { name: "elsewhere-bot", claimMatch: { issuer: "https://issuer.example", subject: "job" } });
        emu.store.identities.put({ ...emu.store.identities.get(ident.uid)!, lastSeenTime: "2026-04-30T09:00:00.000Z" });
        t.keep(made.uid, ident.uid);
        await cli.ok(["config", "set", "existingGroupUid", made.uid]);
        await cli.ok(["config", "set", "existingIdentityUid", ident.uid]);
      },
      // Against the state the refresh above wrote: no resource changes (the two reads are not changes), no write.
      changes: [],
      writes: [],
      check: async ({ cli, outputs: o }) => {
        expect(o["existingGroup"]).toEqual({ uid: made.uid, name: "made-elsewhere", description: "by hand", verified: true, resourceLimits: {} });
        expect(o["existingIsGroup"]).toBe(true);
        expect(o["existingIdentity"]).toEqual({
          name: "elsewhere-bot",
          parentUid: made.uid,
          claimMatch: { issuer: "https://issuer.example", subject: "job" },
          lastSeenTime: "2026-04-30T09:00:00.000Z",
        });
        const read = (await resources(cli)).filter((r) => r.id === made.uid || r.id === ident.uid);
        expect(read.map((r) => [r.type, r.external]).sort()).toEqual([
          ["pulumi-nodejs:dynamic/platform:Group", true],
          ["pulumi-nodejs:dynamic/platform:Identity", true],
        ]);
      },
    },
  ],
  checkDestroy: async ({ client, emu }) => {
    expect(await client.groups.get(made.uid)).toMatchObject({ name: "made-elsewhere" });
    expect(await client.identities.get(ident.uid)).toMatchObject({ name: "elsewhere-bot" });
    expect(await client.groups.list({ childrenOf: emu.orgUid, name: "fields-team" }).collect()).toEqual([]);
  },
});

