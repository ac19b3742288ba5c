/**
 * The language of the Pulumi program a message speaks to, so that a code hint (adopt an object, declare a field) is
 * spelled the way that program writes it: the project's `runtime` (Pulumi.yaml, docs "Project file reference":
 * `nodejs`, `python`, `go`, `dotnet`, `java`, `yaml`), found as the CLI finds the project (upward from a folder to
 * the first `Pulumi.json`, `Pulumi.yaml` or `Pulumi.yml`, the CLI's `DetectProjectPathFrom`).
 *
 * Property spellings follow each language SDK's generated names for the package schema's properties (docs/native.md
 * "SDKs"): TypeScript and YAML keep the schema's camelCase (`adoptUid`), Python uses snake_case keyword arguments
 * (`adopt_uid=`), Go and .NET PascalCase fields (`AdoptUid:` with `pulumi.String`, `AdoptUid =`), Java builder
 * methods (`.adoptUid(…)`).
 */
import { readFileSync, statSync } from "node:fs";
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
  /** The project's `runtime` (its `name` when it is an object), when it is a non-empty string. */
  runtime?: string;
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

/** `name`, `backend.url` and `runtime` of a project file; fields it cannot read are left out. */
function readProject(file: string): { name?: string; backendUrl?: string; runtime?: string } {
  let doc: unknown;
  try {
    const text = readFileSync(file, "utf8");
    doc = file.endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch {
    return {};
  }
  if (typeof doc !== "object" || doc === null) return {};
  const d = doc as { name?: unknown; backend?: { url?: unknown } | null; runtime?: unknown };
  const url = typeof d.backend === "object" && d.backend !== null ? d.backend.url : undefined;
  const runtime = typeof d.runtime === "object" && d.runtime !== null ? (d.runtime as { name?: unknown }).name : d.runtime;
  return {
    ...(typeof d.name === "string" && d.name !== "" ? { name: d.name } : {}),
    ...(typeof url === "string" && url !== "" ? { backendUrl: url } : {}),
    ...(typeof runtime === "string" && runtime !== "" ? { runtime } : {}),
  };
}


/** A program language whose spelling {@link propertyLine} knows. */
export type ProgramLanguage = "nodejs" | "python" | "go" | "dotnet" | "java" | "yaml";

const LANGUAGES: readonly ProgramLanguage[] = ["nodejs", "python", "go", "dotnet", "java", "yaml"];

/** The language of a project's `runtime`; `nodejs` (TypeScript spelling) when it is missing or unknown. */
export function languageOf(runtime: string | undefined): ProgramLanguage {
  return LANGUAGES.find((l) => l === runtime) ?? "nodejs";
}

/**
 * The language of the project found from `dir`; by default from the folder the engine names to its plugins
 * (`PULUMI_ROOT_DIRECTORY`, the project's root), else this process's folder.
 */
export function programLanguage(dir: string = process.env["PULUMI_ROOT_DIRECTORY"] || process.cwd()): ProgramLanguage {
  return languageOf(findProject(dir)?.runtime);
}

/**
 * One property of a resource's arguments as `lang` writes it, e.g. `propertyLine("python", "adoptUid", "<uid>")` is
 * `adopt_uid="<uid>"`; a string value is a JSON string literal (valid in each language for the uids and names it is
 * given), a boolean the language's own (`True` in Python).
 */
export function propertyLine(lang: ProgramLanguage, field: string, value: string | boolean): string {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value);
  const pascal = field.charAt(0).toUpperCase() + field.slice(1);
  switch (lang) {
    case "python":
      return `${field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}=${typeof value === "boolean" ? (value ? "True" : "False") : text}`;
    case "go":
      return `${pascal}: pulumi.${typeof value === "boolean" ? "Bool" : "String"}(${text})`;
    case "dotnet":
      return `${pascal} = ${text}`;
    case "java":
      return `.${field}(${text})`;
    case "yaml":
      return `${field}: ${text} (under properties:)`;
    default:
      return `${field}: ${text}`;
  }
}
