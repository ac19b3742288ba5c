/**
 * `platform-pulumi drift`'s reading of engine events, on hand-written events in the shape the CLI writes to
 * `--event-log` (the engine runs are in workflows.test.ts, backends.test.ts and the consumer tier).
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { diffFields, driftOf, formatDrift, pendingOf } from "../provider/commands/drift";
import { readEngineEvents } from "../provider/commands/events";

const T = "pulumi-nodejs:dynamic/platform:";
const urn = (kind: string, name: string) => `urn:pulumi:prod::infra::${T}${kind}::${name}`;
let seq = 0;
function refresh(kind: string, name: string, old: { inputs?: object; outputs?: object; id?: string }, now?: { inputs?: object; outputs?: object }): EngineEvent[] {
  const u = urn(kind, name);
  const meta = (op: string, o?: object, n?: object) => ({ op, urn: u, type: `${T}${kind}`, provider: "", ...(o ? { old: { type: `${T}${kind}`, urn: u, ...o } } : {}), ...(n ? { new: { type: `${T}${kind}`, urn: u, ...n } } : {}) });
  return [
    { sequence: seq++, timestamp: 0, resourcePreEvent: { metadata: meta("refresh", old, old) } },
    { sequence: seq++, timestamp: 0, resOutputsEvent: { metadata: meta(now ? "update" : "delete", old, now) } },
  ] as unknown as EngineEvent[];
}
function step(op: string, kind: string, name: string, oldInputs?: object, newInputs?: object): EngineEvent[] {
  const u = urn(kind, name);
  const metadata = { op, urn: u, type: `${T}${kind}`, provider: "", ...(oldInputs ? { old: { inputs: oldInputs, outputs: {} } } : {}), ...(newInputs ? { new: { inputs: newInputs, outputs: {} } } : {}) };
  return [{ sequence: seq++, timestamp: 0, resourcePreEvent: { metadata } }] as unknown as EngineEvent[];
}

describe("drift from a refresh's events", () => {
  it("walks nested inputs to dotted paths and leaves the serialized provider out", () => {
    expect(
      diffFields(
        { __provider: "a", name: "ci", claimMatch: { issuer: "https://i", subject: "main" }, tags: ["a"] },
        { __provider: "b", name: "ci", claimMatch: { issuer: "https://i", subject: "dev" }, tags: ["a", "b"] },
      ),
    ).toEqual([
      { path: "claimMatch.subject", state: "main", live: "dev" },
      { path: "tags", state: ["a"], live: ["a", "b"] },
    ]);
  });

  it("reports changed and deleted objects, sorted by URN; an unchanged read and what the stack only reads are not drift", () => {
    const events = [
      ...refresh("Identity", "bot", { id: "u/2", inputs: { name: "bot" } }),
      ...refresh("Group", "team", { id: "u/1", inputs: { description: "a" } }, { inputs: { description: "b" } }),
      ...refresh("Group", "same", { id: "u/3", inputs: { description: "a" } }, { inputs: { description: "a" } }),
      ...refresh("Group", "root", { id: "u", inputs: {} }, { inputs: { name: "org" } }),
    ];
    expect(driftOf(events, new Set([urn("Group", "root")]))).toEqual([
      { urn: urn("Group", "team"), type: "Group", name: "team", uid: "u/1", change: "changed", fields: [{ path: "description", state: "a", live: "b" }] },
      { urn: urn("Identity", "bot"), type: "Identity", name: "bot", uid: "u/2", change: "deleted", fields: [] },
    ]);
  });

  it("compares outputs, server timestamps left out, when a read returned no inputs", () => {
    const events = refresh("Group", "team", { id: "u/1", inputs: {}, outputs: { description: "a", updateTime: "t1" } }, { inputs: {}, outputs: { description: "b", updateTime: "t2" } });
    expect(driftOf(events)[0]?.fields).toEqual([{ path: "description", state: "a", live: "b" }]);
  });
});

describe("pending from a preview's plan", () => {
  it("one entry per resource: a replace's two steps collapse, reads and unchanged steps are left out", () => {
    const { steps } = readEngineEvents([
      ...step("create-replacement", "Repo", "app", { name: "a" }, { name: "b" }),
      ...step("delete-replaced", "Repo", "app", { name: "a" }, { name: "b" }),
      ...step("same", "Group", "team", { d: 1 }, { d: 1 }),
      ...step("read", "Group", "root"),
      ...step("update", "Group", "ci", { description: "x", name: "ci" }, { description: "y", name: "ci" }),
      ...step("delete", "Tag", "latest", { name: "latest" }),
    ]);
    expect(pendingOf(steps).map(({ type, name, op, fields }) => ({ type, name, op, fields }))).toEqual([
      { type: "Group", name: "ci", op: "update", fields: ["description"] },
      { type: "Repo", name: "app", op: "replace", fields: ["name"] },
      { type: "Tag", name: "latest", op: "delete", fields: [] },
    ]);
  });

  it("leaves out the Org component, which has no API object behind it; its children stay", () => {
    const org = { sequence: seq++, timestamp: 0, resourcePreEvent: { metadata: { op: "update", urn: "urn:pulumi:prod::p::platform:index:Org::org", type: "platform:index:Org", provider: "", old: { inputs: { source: "a" }, outputs: {} }, new: { inputs: { source: "b" }, outputs: {} } } } } as unknown as EngineEvent;
    const { steps } = readEngineEvents([org, ...step("update", "Group", "org/team", { description: "x" }, { description: "y" })]);
    expect(pendingOf(steps).map(({ type, name, op }) => `${type} ${name} ${op}`)).toEqual(["Group org/team update"]);
  });

  it("the markdown report escapes pipes in values and lists each section", () => {
    const md = formatDrift(
      { stack: "prod", drifted: [{ urn: "u", type: "Group", name: "a", uid: "x", change: "changed", fields: [{ path: "description", state: "a|b", live: null }] }], pending: [], unmanaged: [] },
      "markdown",
      true,
    );
    expect(md).toContain('| Group | a | x | changed | description | "a\\|b" | null |');
    expect(md).toContain("**Pending** (what `pulumi up --refresh` would do)\n\nNone.");
    expect(md).toContain("**Unmanaged**");
  });
});
