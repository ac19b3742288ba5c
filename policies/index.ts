/**
 * The `platform` policy pack: `pulumi preview --policy-pack policies` (config: `--policy-pack-config <file>`).
 * The policies and their rules live in `rules.ts`.
 */
import { PolicyPack } from "@pulumi/policy";
import { policies } from "./rules";

new PolicyPack("platform", { policies });
