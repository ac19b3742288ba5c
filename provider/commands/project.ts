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
import { existsSync, readFileSync } from "node:fs";
import { findProject } from "../programLanguage";
import { homedir } from "node:os";
import * as path from "node:path";

export { PROJECT_FILES, findProject, type ProjectFile } from "../programLanguage";

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
