/**
 * `pulumi import` of every kind through the native plugin (docs/native.md): one object of each kind of the registry
 * is made outside Pulumi (through its own provider, with the samples of `harness/samples.ts`), then imported by its
 * uid as `platform:<module>:<Kind>`. Each import must exit 0, send the API no write, and leave the kind's type in
 * the state with the object's uid as its id and its outputs read from the API.
 */
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
        for (const k of KINDS) {
          const news = SAMPLES[k.kind]!(top.uid, made)[0]!;
          const checked = await k.provider.check({}, news);
          expect(checked.failures ?? [], k.kind).toEqual([]);
          const r = await k.provider.create(checked.inputs!);
          made[k.kind] = [r.id];
          first.set(k, r.id);
          keep(r.id);
        }
        const results: string[] = [];
        for (const [k, uid] of first) {
          const token = `platform:${k.module}:${k.kind}`;
          const since = emu.requests.length;
          const r = await cli.run(["import", token, `imported-${k.kind}`, uid, "--yes", "--generate-code=false"]);
          const resource = ((await cli.exportState()).deployment.resources ?? []).find((x) => x["type"] === token && x["id"] === uid);
          const outputs = (resource?.["outputs"] ?? {}) as Record<string, unknown>;
          results.push(`${k.kind}: exit ${r.code}, writes ${writes(since).length}, in state ${resource ? "yes" : "no"}, uid ${outputs["uid"] === uid ? "read" : "missing"}`);
          if (resource) await cli.ok(["state", "delete", String(resource["urn"]), "--yes", "--force"]);
          else console.log(`${k.kind} import:\n${r.stdout}\n${r.stderr}`);
        }
        console.log(`pulumi import, kind by kind:\n${results.join("\n")}`);
        expect(results).toEqual([...first.keys()].map((k) => `${k.kind}: exit 0, writes 0, in state yes, uid read`));
      },
    },
  ],
});
