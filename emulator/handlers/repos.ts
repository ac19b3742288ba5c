/**
 * `/registry/{version}/repos`: list and get, over repos seeded at start (read-only in this project, per
 * FACTS.md "Registry and advisories are read-only here").
 */
import { envelope, paginate, parseListQuery } from "../list";
import type { RepoRow, Store } from "../store";
import { newChildUid } from "../uidp";
import { mustGet, prefixes, uidParam, type Handler } from "./common";

/** A repo to seed: its name and description; it is created under the org's root group. */
export interface RepoSeed {
  name: string;
  description?: string;
}

/** The repos an emulator starts with when none are given. */
export const DEFAULT_REPOS: readonly RepoSeed[] = [
  { name: "nginx", description: "Minimal nginx image" },
  { name: "python", description: "Python runtime image" },
  { name: "node", description: "Node.js runtime image" },
  { name: "static", description: "Base image for static binaries" },
];

/** Seeds `repos` under `rootUid`. */
export function seedRepos(store: Store, rootUid: string, repos: readonly RepoSeed[], createTime: string): void {
  for (const r of repos) {
    const row: RepoRow = {
      uid: newChildUid(rootUid),
      name: r.name,
      description: r.description ?? "",
      aliases: [],
      createTime,
      updateTime: createTime,
    };
    store.repos.put(row);
  }
}

/** Registers the repos routes. */
export const repos: Handler = (app, ctx) => {
  const { store } = ctx;
  for (const base of prefixes(ctx, "registry", "repos")) {
    app.get(base, async (req) => {
      const q = parseListQuery(req.query as Record<string, string>);
      return envelope("repos", paginate(store.repos.all(), q), (r) => r);
    });
    app.get(`${base}/*`, async (req) => {
      const uid = uidParam(req);
      return mustGet(store.repos.get(uid), "registry.repo", uid);
    });
  }
};
