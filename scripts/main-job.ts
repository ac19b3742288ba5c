/**
 * `npm start`: the tour of the project through the real Pulumi CLI.
 *
 * Brings the org in the org file (ORG_FILE, default examples/org-setup/org.yaml) up, shows the outputs, changes
 * one group's description outside Pulumi, shows that drift with `pulumi preview --refresh --diff`, converges
 * with `pulumi up --refresh --yes`, destroys, and checks through the API that nothing is left under the root
 * group. Each step prints a one-line header and is verified; the exit code is 0 only if every step did what it
 * says.
 *
 * Against the embedded emulator (default) the state lives in a temporary folder. With PLATFORM_API_URL set it
 * uses that API (PLATFORM_TOKEN and PLATFORM_ORG_UID required) and keeps state in .pulumi-work/state under the
 * project folder, created when missing (a fresh clone has none) and reused by the next run.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { startEmulator, type Emulator } from "../emulator";
import { PlatformClient } from "../provider/client/client";
import { loadOrgFile } from "../provider/org/file";
import { changes, engineOk } from "./lib/engine";
import { PulumiCli, REPO_ROOT } from "./lib/pulumi";

const STEPS = 7;
let step = 0;
function header(title: string): void {
  step += 1;
  process.stdout.write(`\n==> [${step}/${STEPS}] ${title}\n`);
}

class StepFailed extends Error {}
function expect(cond: boolean, what: string): void {
  if (!cond) throw new StepFailed(what);
}

async function snapshot(client: PlatformClient, orgUid: string): Promise<{ groups: string[]; identities: string[]; roleBindings: string[] }> {
  const uids = async (it: AsyncIterable<{ uid: string }>) => {
    const out: string[] = [];
    for await (const x of it) out.push(x.uid);
    return out.sort();
  };
  return {
    groups: await uids(client.groups.list({ descendantsOf: orgUid, pageSize: 200 })),
    identities: await uids(client.identities.list({ descendantsOf: orgUid, pageSize: 200 })),
    roleBindings: await uids(client.roleBindings.list({ descendantsOf: orgUid, pageSize: 200 })),
  };
}

async function main(): Promise<number> {
  const orgFile = path.resolve(REPO_ROOT, process.env["ORG_FILE"] ?? "examples/org-setup/org.yaml");
  const layout = loadOrgFile(orgFile); // fail on a malformed file before anything starts
  let emu: Emulator | undefined;
  let apiUrl = process.env["PLATFORM_API_URL"];
  let token = process.env["PLATFORM_TOKEN"];
  let orgUid = process.env["PLATFORM_ORG_UID"];
  let backendDir: string;
  let tempBackend = false;
  if (apiUrl) {
    if (!token || !orgUid) throw new Error("PLATFORM_API_URL is set, so PLATFORM_TOKEN and PLATFORM_ORG_UID must be set too");
    backendDir = path.join(REPO_ROOT, ".pulumi-work", "state");
    // The file backend refuses a folder that does not exist; a fresh clone has none.
    mkdirSync(backendDir, { recursive: true });
    process.stdout.write(`Using the Platform API at ${apiUrl} (org ${orgUid}); state in ${backendDir}\n`);
  } else {
    emu = await startEmulator();
    ({ url: apiUrl, token, orgUid } = emu);
    backendDir = mkdtempSync(path.join(tmpdir(), "platform-pulumi-state-"));
    tempBackend = true;
    process.stdout.write(`Started the embedded emulator at ${apiUrl} (org ${orgUid}); state in ${backendDir}\n`);
  }
  const client = new PlatformClient({ apiUrl, token });
  const cli = new PulumiCli({
    cwd: REPO_ROOT,
    backendDir,
    stack: "org",
    echo: true,
    env: { PLATFORM_API_URL: apiUrl, PLATFORM_TOKEN: token, PLATFORM_ORG_UID: orgUid, ORG_FILE: orgFile },
  });
  const started = Date.now();
  try {
    await cli.initStack();
    const before = await snapshot(client, orgUid);

    header("pulumi up --yes");
    await cli.ok(["up", "--yes"]);

    header("stack outputs");
    const outputs = await cli.outputs();
    process.stdout.write(`${JSON.stringify(outputs, null, 2)}\n`);
    const counts = outputs["counts"] as Record<string, number> | undefined;
    const want = { groups: layout.groups.length, identities: layout.identities.length, bindings: layout.bindings.length };
    for (const k of ["groups", "identities", "bindings"] as const) {
      expect(counts?.[k] === want[k], `outputs.counts.${k} is ${String(counts?.[k])}, the org file declares ${want[k]}`);
    }
    const groupUids = outputs["groupUids"] as Record<string, string>;
    const live = await snapshot(client, orgUid);
    expect(live.groups.length - before.groups.length === want.groups, `the API has ${live.groups.length - before.groups.length} new groups, want ${want.groups}`);
    expect(live.identities.length - before.identities.length === want.identities, `the API has ${live.identities.length - before.identities.length} new identities, want ${want.identities}`);
    expect(
      live.roleBindings.length - before.roleBindings.length === want.bindings,
      `the API has ${live.roleBindings.length - before.roleBindings.length} new role bindings, want ${want.bindings}`,
    );

    const target = layout.groups[0];
    expect(target !== undefined, "the org file declares no group to change");
    const targetUid = groupUids[target!.path]!;
    const drifted = `changed outside Pulumi at ${new Date().toISOString()}`;
    header(`out-of-band change: description of group "${target!.path}" through the API`);
    const patched = await client.groups.patch(targetUid, { description: drifted }, ["description"]);
    process.stdout.write(`PATCH ${targetUid}?updateMask=description -> description: ${JSON.stringify(patched.description)}\n`);

    header("pulumi preview --refresh --diff");
    const preview = await engineOk(cli, "preview", ["--refresh", "--diff"]);
    const planned = changes(preview);
    const step = planned.find((s) => s.oldOutputs?.["uid"] === targetUid);
    expect(
      step !== undefined && step.diffs.includes("description") && step.oldOutputs?.["description"] === drifted,
      `the preview does not plan to change the out-of-band description: ${JSON.stringify(step ?? null)}`,
    );
    const { create, update, replace, delete: deleted, same } = preview.summary ?? { create: -1, update: -1, replace: -1, delete: -1, same: -1 };
    process.stdout.write(`preview plan (engine summary): ${update} to update, ${same} unchanged, ${create} to create, ${replace} to replace, ${deleted} to delete\n`);
    expect(
      update === 1 && create === 0 && replace === 0 && deleted === 0 && planned.length === 1,
      `the preview should plan exactly one update and nothing else: ${JSON.stringify(preview.summary)}; ${planned.map((s) => `${s.op} ${s.name}`).join(", ")}`,
    );

    header("pulumi up --refresh --yes");
    await cli.ok(["up", "--refresh", "--yes"]);
    const restored = await client.groups.get(targetUid);
    expect(restored.description === (target!.description ?? ""), `description is ${JSON.stringify(restored.description)} after converging`);
    const clean = await cli.run(["preview", "--expect-no-changes"]);
    expect(clean.code === 0, "a preview after converging still shows changes");

    header("pulumi destroy --yes");
    await cli.ok(["destroy", "--yes"]);

    header("check through the API that nothing is left under the root group");
    const after = await snapshot(client, orgUid);
    const left = (k: keyof typeof after) => after[k].filter((u) => !before[k].includes(u));
    const leftovers = [...left("groups"), ...left("identities"), ...left("roleBindings")];
    process.stdout.write(
      `groups: ${after.groups.length}, identities: ${after.identities.length}, role bindings: ${after.roleBindings.length} (before up: ${before.groups.length}, ${before.identities.length}, ${before.roleBindings.length})\n`,
    );
    expect(leftovers.length === 0, `left behind: ${leftovers.join(", ")}`);
    process.stdout.write(`\nAll ${STEPS} steps did what they say (${((Date.now() - started) / 1000).toFixed(1)}s).\n`);
    return 0;
  } catch (err) {
    process.stderr.write(`\nstep ${step} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  } finally {
    await client.close();
    if (emu) await emu.close();
    if (tempBackend) {
      // The stack's settings file (encryption salt) belongs to the temporary backend just removed.
      rmSync(backendDir, { recursive: true, force: true });
      rmSync(path.join(REPO_ROOT, "Pulumi.org.yaml"), { force: true });
    }
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
