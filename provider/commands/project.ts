/**
 * The Pulumi project and state backend a stack command acts on, found the way the Pulumi CLI finds them, so that
 * what a command reads of the backend itself (the stack's update lock, `lock.ts`) is what the `pulumi` it runs in
 * the same folder reads:
 *
 * - **The project**: upward from the folder (`--cwd`, default the current one) to the first folder holding
 *   `Pulumi.json`, `Pulumi.yaml` or `Pulumi.yml`, looked for in that order in each folder (the CLI's
 *   `DetectProjectPathFrom`, sdk/go/common/workspace/paths.go, with the extensions of `encoding.Exts`). Its `name`
 *   and `backend.url` are read from it (JSON, or YAML).
 * - **The backend**: `PULUMI_BACKEND_URL`, else the project's `backend.url`, else the stored login's current
 *   backend (`current` in `credentials.json` of the folder `PULUMI_CREDENTIALS_PATH` names, else of `PULUMI_HOME`,
 *   else of `~/.pulumi`) (the CLI's `GetCurrentCloudURL`, pkg/workspace). {@link configuredBackend} reads those
 *   three; `lock.ts` asks `pulumi whoami --json` only when none gives a URL.
 * - **The stack's project**: a stack named fully (`organization/<project>/<stack>`) names its project; a shorter name
 *   (`<stack>`, `organization/<stack>`) is a stack of the project found above (the diy backends'
 *   `ParseReference`, pkg/backend/diy/store.go).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import * as path from "node:path";
import { parse as parseYaml } from "yaml";

/** The project file the CLI would use, and what these commands read of it. */
export interface ProjectFile {
  /** The project file's path (`…/Pulumi.yaml`). */
  file: string;
  /** The folder holding it. */
  dir: string;
  /** The project's `name`, when it is a string. */
  name?: string;
  /** The project's `backend.url`, when it is a non-empty string. */
  backendUrl?: string;
}

/** The project file names the CLI looks for in each folder, in its order. */
export const PROJECT_FILES = ["Pulumi.json", "Pulumi.yaml", "Pulumi.yml"] as const;

/**
 * The project the CLI finds from `from` (see the module comment): the nearest folder, from `from` up to the root,
 * with a project file.
 * @returns undefined when no folder up to the root has one. A project file that does not parse gives a
 *   {@link ProjectFile} without `name` or `backendUrl` (the CLI itself then refuses to run).
 */
export function findProject(from: string): ProjectFile | undefined {
  let dir = path.resolve(from);
  for (;;) {
    for (const f of PROJECT_FILES) {
      const file = path.join(dir, f);
      if (isFile(file)) return { file, dir, ...readProject(file) };
    }
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false; // missing, or a folder the user cannot read (the CLI goes on upward too)
  }
}

/** `name` and `backend.url` of a project file; fields it cannot read are left out. */
function readProject(file: string): { name?: string; backendUrl?: string } {
  let doc: unknown;
  try {
    const text = readFileSync(file, "utf8");
    doc = file.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch {
    return {};
  }
  if (typeof doc !== "object" || doc === null) return {};
  const d = doc as { name?: unknown; backend?: { url?: unknown } | null };
  const url = typeof d.backend === "object" && d.backend !== null ? d.backend.url : undefined;
  return {
    ...(typeof d.name === "string" && d.name !== "" ? { name: d.name } : {}),
    ...(typeof url === "string" && url !== "" ? { backendUrl: url } : {}),
  };
}

/** Where the backend's URL came from: the variable, the project file, or the stored login. */
export type BackendSource = "PULUMI_BACKEND_URL" | "project" | "login";

/**
 * The backend the CLI run in `cwd` uses, from the three places it looks (see the module comment), without running it.
 * @returns the URL and where it came from; undefined when none of the three gives one (the CLI then asks the user
 *   to log in, or uses its default).
 */
export function configuredBackend(cwd: string, env: NodeJS.ProcessEnv = process.env): { url: string; source: BackendSource } | undefined {
  const fromEnv = env["PULUMI_BACKEND_URL"];
  if (fromEnv) return { url: fromEnv, source: "PULUMI_BACKEND_URL" };
  const fromProject = findProject(cwd)?.backendUrl;
  if (fromProject) return { url: fromProject, source: "project" };
  const login = storedLogin(env);
  return login ? { url: login, source: "login" } : undefined;
}

/** `current` of the stored credentials (`credentials.json`, see the module comment), or undefined. */
function storedLogin(env: NodeJS.ProcessEnv): string | undefined {
  const folder = env["PULUMI_CREDENTIALS_PATH"] || env["PULUMI_HOME"] || path.join(homedir(), ".pulumi");
  const file = path.join(folder, "credentials.json");
  if (!existsSync(file)) return undefined;
  try {
    const current = (JSON.parse(readFileSync(file, "utf8")) as { current?: unknown }).current;
    return typeof current === "string" && current !== "" ? current : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The project and stack name a `--stack` value names, read from `cwd` as the CLI's diy backends read it (see the
 * module comment): `organization/<project>/<stack>` names both; `<stack>` and `organization/<stack>` are of the
 * project found from `cwd` (project undefined when there is none).
 */
export function stackOf(stack: string, cwd: string): { project?: string; stack: string } {
  const parts = stack.split("/");
  const name = parts[parts.length - 1]!;
  const project = parts.length === 3 ? parts[1] : findProject(cwd)?.name;
  return { ...(project ? { project } : {}), stack: name };
}
