/**
 * `pulumi import` of every kind through the native plugin (docs/native.md): one object of each kind of the registry
 * is made outside Pulumi (through its own provider, with the samples of `harness/samples.ts`), then imported by its
 * uid as `platform:<module>:<Kind>`, all of them in one `pulumi import --file` (one engine run). The import must exit
 * 0 and send the API no write, and leave each kind's type in the state with the object's uid as its id and its
 * outputs read from the API (its uid, and its name when the kind has one).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { expect } from "vitest";
import { KINDS, type KindEntry } from "../provider/kinds/registry";
import { setConfigLookup } from "../provider/state";
import { SAMPLES, type Made } from "./harness/samples";
import { stepTest } from "./harness/steps";
import { mkGroup } from "./helpers";

stepTest("pulumi import of every kind through the native plugin", {
  program: "native",
  stack: "native-import",
  steps: [
    {
      name: "one object of each kind, made outside Pulumi, is imported by its uid with no write",
      command: null,
      check: async ({ emu, cli, keep, writes }) => {
        const config: Record<string, string> = { "platform:apiUrl": emu.url, "platform:token": emu.token };
        setConfigLookup((k) => config[k]);
        const top = await mkGroup(emu, emu.orgUid, "import-all", "made outside");
        keep(top.uid);
        const made: Made = {};
        const first = new Map<KindEntry, string>();
        const names = new Map<KindEntry, unknown>();
        for (const k of KINDS) {
          const news = SAMPLES[k.kind]!(top.uid, made)[0]!;
          const checked = await k.provider.check({}, news);
          expect(checked.failures ?? [], k.kind).toEqual([]);
          const r = await k.provider.create(checked.inputs!);
          made[k.kind] = [r.id];
          first.set(k, r.id);
          names.set(k, (r.outs as Record<string, unknown>)["name"]);
          keep(r.id);
        }
        // One `pulumi import --file` of them all: one engine run, not one per kind. A kind whose import fails fails
        // the run, and the CLI's output (printed below) names its resource, `imported-<Kind>`.
        const work = mkdtempSync(path.join(tmpdir(), "native-import-"));
        const file = path.join(work, "import.json");
        writeFileSync(file, JSON.stringify({ resources: [...first].map(([k, uid]) => ({ type: `platform:${k.module}:${k.kind}`, name: `imported-${k.kind}`, id: uid })) }));
        const since = emu.requests.length;
        let r: Awaited<ReturnType<typeof cli.run>>;
        try {
          r = await cli.run(["import", "--file", file, "--yes", "--generate-code=false"]);
        } finally {
          rmSync(work, { recursive: true, force: true });
        }
        if (r.code !== 0) console.log(`pulumi import --file:\n${r.stdout}\n${r.stderr}`);
        expect(writes(since), "API writes of the import").toEqual([]);
        const state = (await cli.exportState()).deployment.resources ?? [];
        const results: string[] = [];
        for (const [k, uid] of first) {
          const token = `platform:${k.module}:${k.kind}`;
          const resource = state.find((x) => x["type"] === token && x["id"] === uid);
          const outputs = (resource?.["outputs"] ?? {}) as Record<string, unknown>;
          // Read from the API: the uid, and the name of a kind that has one (as the object was made).
          const read = outputs["uid"] === uid && outputs["name"] === names.get(k);
          results.push(`${k.kind}: exit ${r.code}, in state ${resource ? "yes" : "no"}, outputs ${read ? "read" : `missing (${JSON.stringify(outputs)})`}`);
          if (resource) await cli.ok(["state", "delete", String(resource["urn"]), "--yes", "--force"]);
        }
        console.log(`pulumi import, kind by kind:\n${results.join("\n")}`);
        expect(results).toEqual([...first.keys()].map((k) => `${k.kind}: exit 0, in state yes, outputs read`));
      },
    },
  ],
});
