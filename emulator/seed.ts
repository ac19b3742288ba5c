/**
 * Seed data for the registry and advisories, and bulk rows for load tests: extra groups, repos with tags, and
 * advisories, all under the org's root group. Loaded with `Table.bulkLoad` (one sort per index), so 100,000
 * groups and 10,000 repos take a second or two, not minutes.
 *
 * From the command line: `--seed <file.json|file.yaml>` (this shape) and/or `--seed-groups N`, `--seed-repos N`,
 * `--seed-tags N` (per repo), `--seed-advisories N`.
 */
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { Row, Store } from "./store";
import { newChildUid } from "./uidp";

/** A repo to seed, with its tags (names, or a count of generated ones). */
export interface RepoSeed {
  name: string;
  description?: string | undefined;
  tags?: string[] | number | undefined;
}

/** An advisory to seed; unset fields get plausible values. */
export interface AdvisorySeed {
  advisoryId?: string | undefined;
  artifactName: string;
  artifactType?: string | undefined;
  componentName?: string | undefined;
  aliases?: string[] | undefined;
}

/** What to seed: explicit entries, counts of generated ones, or both. */
export interface SeedData {
  /** Extra groups directly under the root: a count (named `seed-group-000001`, …) or names. */
  groups?: number | string[] | undefined;
  /** Repos: a count (named `repo-00001`, …) or entries. */
  repos?: number | RepoSeed[] | undefined;
  /** Tags generated per counted repo (and per listed repo without `tags`); default 0. */
  tagsPerRepo?: number | undefined;
  /** Advisories: a count (spread over the seeded repos' names) or entries. */
  advisories?: number | AdvisorySeed[] | undefined;
}

const SeedFile = z.strictObject({
  groups: z.union([z.number().int().nonnegative(), z.array(z.string())]).optional(),
  repos: z
    .union([
      z.number().int().nonnegative(),
      z.array(z.strictObject({ name: z.string(), description: z.string().optional(), tags: z.union([z.array(z.string()), z.number().int().nonnegative()]).optional() })),
    ])
    .optional(),
  tagsPerRepo: z.number().int().nonnegative().optional(),
  advisories: z
    .union([
      z.number().int().nonnegative(),
      z.array(
        z.strictObject({
          advisoryId: z.string().optional(),
          artifactName: z.string(),
          artifactType: z.string().optional(),
          componentName: z.string().optional(),
          aliases: z.array(z.string()).optional(),
        }),
      ),
    ])
    .optional(),
});

/**
 * Reads a seed file (JSON or YAML, the {@link SeedData} shape).
 * @throws Error naming the file and each bad field.
 */
export function readSeedFile(file: string): SeedData {
  const parsed = SeedFile.safeParse(parseYaml(readFileSync(file, "utf8")) ?? {});
  if (!parsed.success) {
    throw new Error(`${file}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ")}`);
  }
  return parsed.data;
}

/** The repos an emulator starts with when none are given. */
export const DEFAULT_SEED: SeedData = {
  repos: [
    { name: "nginx", description: "Minimal nginx image", tags: ["latest", "1.27", "1.27-dev"] },
    { name: "python", description: "Python runtime image", tags: ["latest", "3.13", "3.12"] },
    { name: "node", description: "Node.js runtime image", tags: ["latest", "22", "20"] },
    { name: "static", description: "Base image for static binaries", tags: ["latest"] },
  ],
  advisories: [
    { advisoryId: "CGA-2x4m-7v6q-9r3c", artifactName: "nginx", componentName: "openssl", aliases: ["CVE-2024-5535"] },
    { advisoryId: "CGA-5g8p-q2w3-hx7f", artifactName: "python", componentName: "expat", aliases: ["CVE-2024-45490"] },
    { advisoryId: "CGA-9j2k-3m4n-5p6q", artifactName: "node", componentName: "c-ares", aliases: ["CVE-2024-25629"] },
  ],
};

const pad = (n: number, w: number) => String(n).padStart(w, "0");
const digestOf = (s: string) => `sha256:${Buffer.from(s).toString("hex").padEnd(64, "0").slice(0, 64)}`;

/** Loads `data` into `store` under `orgUid`; returns the counts seeded. */
export function seed(store: Store, orgUid: string, data: SeedData, createTime: string): { groups: number; repos: number; tags: number; advisories: number } {
  const groups: Row[] = [];
  const names = typeof data.groups === "number" ? Array.from({ length: data.groups }, (_v, i) => `seed-group-${pad(i + 1, 6)}`) : data.groups ?? [];
  for (const name of names) groups.push({ uid: newChildUid(orgUid), name, description: "", createTime, updateTime: createTime });
  store.groups.bulkLoad(groups);

  const repoSeeds: RepoSeed[] =
    typeof data.repos === "number" ? Array.from({ length: data.repos }, (_v, i) => ({ name: `repo-${pad(i + 1, 5)}` })) : data.repos ?? [];
  const repos: Row[] = [];
  const tags: Row[] = [];
  for (const r of repoSeeds) {
    const repo: Row = { uid: newChildUid(orgUid), name: r.name, description: r.description ?? "", aliases: [], catalogTier: "CATALOG_TIER_APPLICATION", activeTags: [], bundles: [], createTime, updateTime: createTime };
    repos.push(repo);
    const tagNames = Array.isArray(r.tags) ? r.tags : Array.from({ length: typeof r.tags === "number" ? r.tags : data.tagsPerRepo ?? 0 }, (_v, i) => `v${i + 1}`);
    for (const t of tagNames) {
      tags.push({ uid: newChildUid(repo.uid), name: t, digest: digestOf(`${r.name}:${t}`), deprecated: false, bundles: [], updateTime: createTime });
    }
  }
  store.repos.bulkLoad(repos);
  store.table("tags").bulkLoad(tags);

  const advSeeds: AdvisorySeed[] =
    typeof data.advisories === "number"
      ? Array.from({ length: data.advisories }, (_v, i) => ({ artifactName: repoSeeds[i % Math.max(1, repoSeeds.length)]?.name ?? "nginx", componentName: `component-${i % 97}` }))
      : data.advisories ?? [];
  const advisories: Row[] = advSeeds.map((a, i) => ({
    uid: newChildUid(orgUid),
    advisoryId: a.advisoryId ?? `CGA-${pad(i + 1, 4)}-seed-${pad((i * 7919) % 10000, 4)}`,
    artifactName: a.artifactName,
    artifactType: a.artifactType ?? "image",
    componentName: a.componentName ?? "openssl",
    aliases: a.aliases ?? [],
    events: [],
    createTime,
    updateTime: createTime,
  }));
  store.table("advisories").bulkLoad(advisories);
  return { groups: groups.length, repos: repos.length, tags: tags.length, advisories: advisories.length };
}
