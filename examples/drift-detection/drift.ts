/**
 * Drift detection.
 *
 *     node dist/examples/drift-detection/drift.js report --stack <name> [--cwd <project dir>] [--json]
 *
 * reports the drift of an existing stack (backend and credentials from the environment, as for any `pulumi`
 * command): what `pulumi preview --refresh` would change, as a table or, with `--json`,
 * `[{resource, type, field, old, new}]`. Exit code 0 when nothing drifted, 1 when something did.
 *
 *     node dist/examples/drift-detection/drift.js [--json]
 *
 * is the tour, end to end:
 * Brings the sample program up (on the embedded emulator unless PLATFORM_API_URL is set), then, outside Pulumi
 * and through the API, edits one group's description and deletes one identity. `pulumi preview --refresh --diff`
 * must then report exactly those two changes (checked on the engine's events and summary); `pulumi refresh` and
 * `pulumi up` converge, and a last preview shows no changes. With `--json` only the drift report is printed, as JSON for CI:
 * `[{resource, type, field, old, new}]`, where `old` is what the server has and `new` what the program declares.
 *
 * The drift report comes from the engine events of `pulumi preview --refresh` (scripts/lib/engine.ts): each
 * planned step after the refresh is a drift.
 * Exit code 0 when every step did what it says.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { startEmulator, type Emulator } from "../../emulator";
import { PlatformClient } from "../../provider/client/client";
import { changes, engineOk, type EngineRun } from "../../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../../scripts/lib/pulumi";

/** One drifted field (or a whole resource gone: `field` is `(resource)`). */
export interface Drift {
  /** The Pulumi resource name. */
  resource: string;
  /** The resource kind, e.g. `Group`. */
  type: string;
  field: string;
  /** What the server has now (null: gone). */
  old: unknown;
  /** What the program declares (null: to be deleted). */
  new: unknown;
}

/**
 * The drift in the engine events of a `pulumi preview --refresh` ({@link engineOk}): one entry per changed input of
 * each planned update or replace, one `(resource)` entry per planned create (gone from the server) or delete.
 */
export function driftOf(preview: Pick<EngineRun, "steps">): Drift[] {
  const out: Drift[] = [];
  for (const s of changes(preview)) {
    const type = s.type.replace("pulumi-nodejs:dynamic/platform:", "");
    if (s.op === "create") out.push({ resource: s.name, type, field: "(resource)", old: null, new: "declared" });
    else if (s.op === "delete") out.push({ resource: s.name, type, field: "(resource)", old: "exists", new: null });
    else for (const k of s.diffs) out.push({ resource: s.name, type, field: k, old: s.oldInputs?.[k] ?? null, new: s.newInputs?.[k] ?? null });
  }
  return out;
}

/** `report` mode: the drift of an existing stack; exit 1 when there is any. */
async function report(): Promise<number> {
  const { values } = parseArgs({ args: process.argv.slice(3), options: { stack: { type: "string" }, cwd: { type: "string", default: process.cwd() }, json: { type: "boolean", default: false } } });
  const stack = values.stack ?? process.env["PULUMI_STACK"];
  if (!stack) throw new Error("give the stack with --stack <name> (or PULUMI_STACK)");
  const cli = new PulumiCli({ cwd: path.resolve(values.cwd), stack });
  const drift = driftOf(await engineOk(cli, "preview", ["--refresh"], { echo: false }));
  if (values.json) process.stdout.write(`${JSON.stringify(drift, null, 2)}\n`);
  else if (drift.length === 0) process.stdout.write("no drift\n");
  else {
    process.stdout.write("| resource | type | field | on the server | declared |\n|---|---|---|---|---|\n");
    for (const d of drift) process.stdout.write(`| ${d.resource} | ${d.type} | ${d.field} | ${JSON.stringify(d.old)} | ${JSON.stringify(d.new)} |\n`);
  }
  return drift.length === 0 ? 0 : 1;
}

async function main(): Promise<number> {
  if (process.argv[2] === "report") return report();
  const json = process.argv.includes("--json");
  const say = (s: string) => {
    if (!json) process.stdout.write(`${s}\n`);
  };
  let emu: Emulator | undefined;
  let apiUrl = process.env["PLATFORM_API_URL"];
  let token = process.env["PLATFORM_TOKEN"];
  let orgUid = process.env["PLATFORM_ORG_UID"];
  if (!apiUrl) {
    emu = await startEmulator();
    ({ url: apiUrl, token, orgUid } = emu);
  }
  if (!token || !orgUid) throw new Error("PLATFORM_API_URL is set, so PLATFORM_TOKEN and PLATFORM_ORG_UID must be set too");
  const backend = mkdtempSync(path.join(tmpdir(), "drift-"));
  const cwd = path.join(REPO_ROOT, "examples", "drift-detection", "program");
  const cli = new PulumiCli({ cwd, backendDir: backend, stack: "drift", echo: !json, env: { PLATFORM_API_URL: apiUrl, PLATFORM_TOKEN: token, PLATFORM_ORG_UID: orgUid } });
  const client = new PlatformClient({ apiUrl, token });
  try {
    await cli.initStack();
    say("==> pulumi up --yes");
    await cli.ok(["up", "--yes", "--skip-preview"], { echo: false });
    const out = (await cli.outputs()) as Record<string, string>;
    say(`==> outside Pulumi: change the description of group "apps", delete identity "deployer"`);
    await client.groups.patch(out["appsUid"]!, { description: "Edited in the console" }, ["description"]);
    await client.identities.delete(out["deployerUid"]!);

    const drift = driftOf(await engineOk(cli, "preview", ["--refresh"], { echo: false }));
    if (json) {
      process.stdout.write(`${JSON.stringify(drift, null, 2)}\n`);
    } else {
      say("==> pulumi preview --refresh --diff");
      const shown = await engineOk(cli, "preview", ["--refresh", "--diff"]);
      const { create, update, replace, delete: deleted } = shown.summary ?? { create: -1, update: -1, replace: -1, delete: -1 };
      if (create !== 1 || update !== 1 || replace !== 0 || deleted !== 0) throw new Error(`the preview should plan 1 create and 1 update, got ${JSON.stringify(shown.summary)}`);
      say("==> the preview plans 1 create (the deleted identity) and 1 update (the edited description), nothing else");
    }
    const expected = drift.length === 2 && drift.some((d) => d.resource === "apps" && d.field === "description") && drift.some((d) => d.resource === "deployer" && d.field === "(resource)");
    if (!expected) throw new Error(`expected exactly the two changes made outside Pulumi, got ${JSON.stringify(drift)}`);

    say("==> pulumi refresh --yes, then pulumi up --yes");
    await cli.ok(["refresh", "--yes", "--skip-preview"], { echo: false });
    await cli.ok(["up", "--yes", "--skip-preview"], { echo: false });
    const clean = await cli.run(["preview", "--expect-no-changes"], { echo: false });
    if (clean.code !== 0) throw new Error("a preview after converging still shows changes");
    say("==> converged: a preview shows no changes");
    await cli.ok(["destroy", "--yes", "--skip-preview"], { echo: false });
    return 0;
  } finally {
    await client.close();
    await emu?.close();
    rmSync(backend, { recursive: true, force: true });
    rmSync(path.join(cwd, "Pulumi.drift.yaml"), { force: true });
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`drift detection: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
