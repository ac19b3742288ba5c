/**
 * The `platform` policy pack: `pulumi preview --policy-pack policies` (config: `--policy-pack-config <file>`),
 * or from an installed package, `--policy-pack node_modules/platform-pulumi/policies`. The policies and their
 * rules live in `rules.ts`.
 *
 * `@pulumi/policy` is an optional peer dependency of platform-pulumi (only this pack needs it), so a project that
 * did not install it gets a message saying what to install instead of a bare `Cannot find module`.
 */
import type * as Policy from "@pulumi/policy";
import { gateInputs, judgeChange } from "./change";
import { policies } from "./rules";

function loadPolicy(): typeof Policy {
  try {
    return require("@pulumi/policy") as typeof Policy;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "MODULE_NOT_FOUND" && e.message.includes("'@pulumi/policy'")) {
      process.stderr.write(
        "the platform policy pack needs @pulumi/policy (an optional peer dependency of platform-pulumi): " +
          "run `npm install --save-dev @pulumi/policy` in the Pulumi project\n",
      );
      process.exit(1);
    }
    throw err;
  }
}

// Every finding tagged with its severity and, when the gate gave a baseline, whether the stack already had it;
// unused access is about the stack as it stands, never "already present". Each rule is followed by its advisory
// twin, which reports the rule's findings below the failing severity (change.ts, "One verdict from every door").
// `gate-inputs` last: it reports what the others read and wrote (change.ts).
new (loadPolicy().PolicyPack)("platform", {
  policies: [...policies.flatMap((p) => judgeChange(p, { comparesItself: p.name === "no-new-access" || p.name === "unused-access" })), gateInputs],
});
