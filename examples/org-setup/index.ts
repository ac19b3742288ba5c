/**
 * The org-setup program: declares the org described in a YAML file with the package's `Org` component (groups in
 * a hierarchy, workload identities, custom roles, role bindings, image repos, event subscriptions) under the
 * org's root group. The repository's root Pulumi.yaml runs it; in your own project, copy this file and the org
 * file.
 *
 * Inputs: the org file (`ORG_FILE`, default `examples/org-setup/org.yaml` from the project folder; format in the
 * README's "Declarative org setup") and the root group's uid (`platform:orgUid` or `PLATFORM_ORG_UID`).
 * Stack outputs: `groupUids` (uid by group path), `identityUids` (uid by identity path), `repoUids` (uid by repo
 * path), `counts` ({groups, identities, roles, bindings, repos, subscriptions}).
 */
import * as pulumi from "@pulumi/pulumi";
import { Org } from "platform-pulumi";

const orgUid = new pulumi.Config("platform").get("orgUid") ?? process.env["PLATFORM_ORG_UID"];
if (!orgUid) throw new Error("the org's root group uid is not set: set stack config `platform:orgUid` or PLATFORM_ORG_UID");

const org = new Org("org", { parentUid: orgUid, file: process.env["ORG_FILE"] ?? "examples/org-setup/org.yaml" });

export const groupUids = org.groupUids;
export const identityUids = org.identityUids;
export const repoUids = org.repoUids;
export const counts = org.counts;
