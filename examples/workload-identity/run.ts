/**
 * The workload-identity workflow on the embedded emulator:
 *
 *     node dist/examples/workload-identity/run.js
 *
 * 1. `setup` (as the org owner) declares an identity that GitHub-Actions-style tokens of one repository's main
 *    branch may assume, with `viewer` on one group;
 * 2. an OIDC token for that subject is minted by the emulator's test issuer (playing GitHub's);
 * 3. `reader` runs with only PLATFORM_IDENTITY and PLATFORM_IDENTITY_TOKEN: it reads the groups it may see;
 * 4. `reader` with `tryWrite` is refused the create (PERMISSION_DENIED), having no role that allows it.
 *
 * Exit code 0 when every step did what it says.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { startEmulator } from "../../emulator";
import { runEngine } from "../../scripts/lib/engine";
import { PulumiCli, REPO_ROOT } from "../../scripts/lib/pulumi";

async function main(): Promise<number> {
  const emu = await startEmulator();
  const backend = mkdtempSync(path.join(tmpdir(), "wi-"));
  const dir = (p: string) => path.join(REPO_ROOT, "examples", "workload-identity", p);
  const base = { PLATFORM_API_URL: emu.url, PLATFORM_ORG_UID: emu.orgUid };
  const setup = new PulumiCli({ cwd: dir("setup"), backendDir: backend, stack: "wi", env: { ...base, PLATFORM_TOKEN: emu.token } });
  const cleanup = () => {
    for (const p of ["setup", "reader"]) rmSync(path.join(dir(p), "Pulumi.wi.yaml"), { force: true });
    rmSync(backend, { recursive: true, force: true });
  };
  try {
    await setup.initStack();
    await setup.ok(["config", "set", "issuer", emu.issuer.url]);
    process.stdout.write("==> setup (as the org owner): pulumi up\n");
    await setup.ok(["up", "--yes", "--skip-preview"]);
    const out = (await setup.outputs()) as Record<string, string>;
    process.stdout.write(`identity ${out["identityUid"]} may act as viewer on ${out["groupUid"]}\n`);

    process.stdout.write("==> a CI job's OIDC token (the emulator's test issuer plays GitHub's)\n");
    const res = await fetch(`${emu.authUrl}/oidc/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ subject: "repo:my-org/deployer:ref:refs/heads/main", claims: { repository_owner: "my-org" } }),
    });
    const { id_token: oidc } = (await res.json()) as { id_token: string };

    const reader = new PulumiCli({
      cwd: dir("reader"),
      backendDir: backend,
      stack: "wi",
      env: { ...base, PLATFORM_TOKEN: "", PLATFORM_IDENTITY: out["identityUid"], PLATFORM_IDENTITY_TOKEN: oidc },
    });
    await reader.initStack();
    await reader.ok(["config", "set", "groupUid", out["groupUid"]!]);
    process.stdout.write("==> reader (workload identity only): pulumi up\n");
    await reader.ok(["up", "--yes", "--skip-preview"]);
    const seen = ((await reader.outputs()) as { visibleGroups: string[] }).visibleGroups;
    process.stdout.write(`read with the viewer role: ${JSON.stringify(seen)}\n`);
    if (!seen.includes("release-notes")) throw new Error("the reader did not see the group its role covers");

    process.stdout.write("==> reader tries a write it has no role for\n");
    await reader.ok(["config", "set", "tryWrite", "true"]);
    const write = await runEngine(reader, "up", ["--yes", "--skip-preview"]);
    // The refusal is the error diagnostic the engine reports on the resource whose create failed.
    const denied = write.diagnostics.find((d) => d.severity === "error" && d.urn !== undefined && /Permission denied|code 7/.test(d.message));
    const line = denied?.message.split("\n").find((l) => /Permission denied/.test(l))?.trim() ?? denied?.message.split("\n")[0];
    process.stdout.write(`refused: ${line ?? "(no permission error found)"}\n`);
    if (write.code === 0 || !denied) throw new Error("the write was not refused with PERMISSION_DENIED");
    const exchanges = emu.requests.filter((r) => r.path === "/sts/exchange" && r.status === 200).length;
    process.stdout.write(`==> done: ${exchanges} token exchanges, no API token given to the reader\n`);
    await reader.ok(["config", "rm", "tryWrite"]);
    await reader.ok(["destroy", "--yes", "--skip-preview"]);
    await setup.ok(["destroy", "--yes", "--skip-preview"]);
    return 0;
  } finally {
    cleanup();
    await emu.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`workload identity: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
