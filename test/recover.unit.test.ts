/**
 * `platform-pulumi recover`'s messages for a stack it cannot read or write yet: the file backend's
 * empty `.attrs` file that a killed `pulumi` leaves about one time in four, and the lock a killed update holds.
 * The end-to-end path (kill, cancel, recover --yes, up) runs in test/soak.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { diagnose, table } from "../provider/commands/stack";
import { recoverCommand } from "../provider/commands/recover";

const saved = process.env["PULUMI_BACKEND_URL"];
afterEach(() => {
  if (saved === undefined) delete process.env["PULUMI_BACKEND_URL"];
  else process.env["PULUMI_BACKEND_URL"] = saved;
});

describe("recover's diagnosis of a stack it cannot use", () => {
  it("names the empty attributes file of a file backend and says to remove it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "recover-diag-"));
    try {
      writeFileSync(path.join(dir, "Pulumi.yaml"), "name: my-org\nruntime: nodejs\n");
      const stacks = path.join(dir, "state", ".pulumi", "stacks", "my-org");
      mkdirSync(stacks, { recursive: true });
      writeFileSync(path.join(stacks, "prod.json"), "{}");
      writeFileSync(path.join(stacks, "prod.json.attrs"), "");
      process.env["PULUMI_BACKEND_URL"] = `file://${path.join(dir, "state")}`;
      const err = diagnose({ stack: "prod", cwd: dir }, "pulumi stack export", "error: failed to load checkpoint: EOF");
      expect(err.message).toContain(`${path.join(stacks, "prod.json.attrs")} is empty`);
      expect(err.hint).toContain(`rm ${path.join(stacks, "prod.json.attrs")}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says to run pulumi cancel when the update holding the lock is gone", () => {
    const out = "error: could not import deployment: the stack is currently locked by 1 lock(s). Either wait …\n  file:///x/locks/p/s/1.json: created by root@vm (pid 999999999) at 2026-11-23T08:45:55Z";
    const err = diagnose({ stack: "prod", cwd: "." }, "pulumi stack import", out);
    expect(err.message).toContain("pid 999999999, no longer running");
    expect(err.hint).toContain("pulumi cancel --stack prod --yes");
  });

  it("asks to wait when the process holding the lock still runs", () => {
    const err = diagnose({ stack: "prod", cwd: "." }, "pulumi stack import", `currently locked by 1 lock(s) … (pid ${process.pid}) at …`);
    expect(err.hint).toMatch(/Wait for that update to end/);
  });

  it("rejects a missing --stack as a usage error (exit 2)", async () => {
    expect(await recoverCommand([])).toBe(2);
  });

  it("prints plans as aligned tables", () => {
    expect(table(["a", "bb"], [["xxx", "y"]]).split("\n")).toEqual(["a    bb", "---  --", "xxx  y"]);
  });
});
