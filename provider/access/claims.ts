/**
 * Who outside the org can present a token an identity's `claimMatch` accepts, in words, for the well-known public
 * OIDC issuers whose subject formats are documented: GitHub Actions (`repo:<owner>/<repo>:ref:…`,
 * `…:environment:…`, `…:pull_request`), GitLab (`project_path:<group>/<project>:ref_type:…:ref:…`), Buildkite
 * (`organization:<org>:pipeline:<pipeline>:ref:…`) and Google (`sub` a numeric account id). Each sentence is
 * backed by a probe: a subject such a workload presents, matched against the pattern as the token exchange matches
 * it (RE2, whole value). An issuer not listed gets no words (the `identity-subject-not-wildcard` policy's generic
 * foreign probes still judge it).
 */
import { RE2JS } from "re2js";
import type { ClaimMatch } from "./model";

/** A well-known issuer: its URL, its name, and the probes of its subject format. */
interface KnownIssuer {
  url: string;
  name: string;
  /** Probes built from the owner and project the pattern names literally (`my-org`, `app`), or stand-ins. */
  probes: (owner: string, project: string, shown: string) => Array<{ subject: string; says: string }>;
}

const KNOWN: readonly KnownIssuer[] = [
  {
    url: "https://token.actions.githubusercontent.com",
    name: "GitHub Actions",
    probes: (o, p, shown) => [
      { subject: "repo:someone-else-0x/any-repo:ref:refs/heads/main", says: "any workflow of any repository on GitHub" },
      { subject: `repo:${o}/another-repo-0x:ref:refs/heads/main`, says: `any workflow of any repository under ${o}` },
      { subject: `repo:${o}/${p}:pull_request`, says: `pull-request workflows of ${shown}, including pull requests from forks (code anyone can propose)` },
      { subject: `repo:${o}/${p}:ref:refs/heads/any-branch-0x`, says: `a workflow on any branch of ${shown} (anyone who may push a branch)` },
      { subject: `repo:${o}/${p}:environment:any-environment-0x`, says: `a workflow in any environment of ${shown}` },
    ],
  },
  {
    url: "https://gitlab.com",
    name: "GitLab CI",
    probes: (o, p, shown) => [
      { subject: "project_path:someone-else-0x/any-project:ref_type:branch:ref:main", says: "any pipeline of any project on gitlab.com" },
      { subject: `project_path:${o}/another-project-0x:ref_type:branch:ref:main`, says: `any pipeline of any project under ${o}` },
      { subject: `project_path:${o}/${p}:ref_type:branch:ref:any-branch-0x`, says: `a pipeline on any branch of ${shown} (including merge-request branches)` },
    ],
  },
  {
    url: "https://agent.buildkite.com",
    name: "Buildkite",
    probes: (o, p, shown) => [
      { subject: "organization:someone-else-0x:pipeline:any:ref:refs/heads/main:commit:0:step:0", says: "any pipeline of any Buildkite organization" },
      { subject: `organization:${o}:pipeline:another-pipeline-0x:ref:refs/heads/main:commit:0:step:0`, says: `any pipeline of the Buildkite organization ${o}` },
      { subject: `organization:${o}:pipeline:${p}:ref:refs/heads/any-branch-0x:commit:0:step:0`, says: `a build of ${shown} on any branch` },
    ],
  },
  {
    url: "https://accounts.google.com",
    name: "Google",
    probes: () => [{ subject: "100000000000000000001", says: "any Google account or service account" }],
  },
];

/**
 * The owner and project a subject pattern names literally (`repo:my-org/app:…` → `my-org`, `app`), with how to
 * say them (`my-org/app`, or `any repository under my-org` when the project is a pattern).
 */
function namesIn(pattern: string): { owner: string; project: string; shown: string } {
  const m = /^\^?(?:repo|project_path|organization):([A-Za-z0-9_-]+)(?:\/|:pipeline:)(?:([A-Za-z0-9_-][A-Za-z0-9_.-]*)(?=:|\$|$))?/.exec(pattern);
  const owner = m?.[1] ?? "your-org";
  return { owner, project: m?.[2] ?? "any-repo-0x", shown: m?.[2] ? `${owner}/${m[2]}` : `any repository under ${owner}` };
}

function matches(pattern: string, value: string): boolean {
  try {
    return RE2JS.compile(`^(?:${pattern})$`, RE2JS.DOTALL).matches(value);
  } catch {
    return false;
  }
}

/**
 * The workloads outside the org whose tokens `cm` accepts, one sentence each, for a well-known issuer with a
 * subject pattern (an exact subject admits one workload, which is no surprise). Empty when the issuer is not a
 * well-known one, the subject is exact, or no probe matches.
 * @example outsideWorkloads({ issuer: "https://token.actions.githubusercontent.com", subjectPattern: "repo:my-org/.*" })
 *   // → ["GitHub Actions: any workflow of any repository under my-org", "GitHub Actions: pull-request workflows of …", …]
 */
export function outsideWorkloads(cm: ClaimMatch | undefined): string[] {
  if (!cm?.subjectPattern || !cm.issuer) return [];
  const known = KNOWN.find((k) => k.url === cm.issuer!.replace(/\/$/, ""));
  if (!known) return [];
  const { owner, project, shown } = namesIn(cm.subjectPattern);
  return known.probes(owner, project, shown).filter((p) => matches(cm.subjectPattern!, p.subject)).map((p) => `${known.name}: ${p.says}`);
}
