/**
 * `platform-pulumi export --org <root uid> [--under <group uid>] --out <dir> [--format ts|yaml] [--stack <name>]`
 * (`--stack` with a project: `--format ts`, or `--layout split`):
 * an org that exists (built by hand or by scripts) as a Pulumi program whose first `pulumi up`
 * adopts every object: it creates nothing, deletes nothing and changes nothing. `pulumi import` cannot do this
 * for dynamic resources (pulumi/pulumi#16175).
 *
 * It reads the API with the usual settings (`PLATFORM_API_URL`, `PLATFORM_TOKEN` or workload identity, see
 * `config.ts`), shows progress on stderr (a progress bar when stderr is a terminal, plain lines otherwise),
 * writes the project (`--format ts`, see `export/typescript.ts`) or the org-setup program's org file
 * (`--format yaml`, see `export/yaml.ts`), and ends with a summary table on stdout: what was exported by kind,
 * and what was left out and why. The files depend only on the org: a second export writes the same bytes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { clientFromSettings } from "../clientFactory";
import { resolveSettings } from "../config";
import { buildModel, type OrgModel, type Skipped } from "../export/model";
import { READ_KINDS, readOrg, type ReadProgress } from "../export/read";
import { declaredCounts, writeTypeScriptProject, type GeneratedFile } from "../export/typescript";
import { writeOrgFile } from "../export/yaml";
import { generatorHazards, importFile } from "../export/pulumiImport";
import { importCommands, PROGRAM_LANGUAGES, programConfigKeys, programProjects } from "../export/programs";
import { splitModel, writeSplitOrgFiles, writeSplitProjects } from "../export/split";
import { table } from "./stack";
import { printable } from "../text";
import { TIMEOUT_USAGE } from "./failure";
import { runCommand, type CommandFrame } from "./frame";

/** The `export` subcommand's usage. */
export const EXPORT_USAGE = `usage: platform-pulumi export --org <root uid> [--under <group uid>] --out <dir> [--format ts|yaml|pulumi-import]
       [--stack <name> (not with one org file: --format yaml --layout one)] [--layout one|split [--children <n>]]
       [--timeout <d>]
  Writes an existing org as a Pulumi program whose first \`pulumi up\` adopts every object (adoptUid) and
  creates, deletes and changes nothing. Reads the API given by PLATFORM_API_URL with PLATFORM_TOKEN (or
  workload identity: PLATFORM_IDENTITY and PLATFORM_IDENTITY_TOKEN[_FILE]).
  --org <uid>       the org's root group (40 hex characters) (required)
  --under <uid>     export only what lives under this group of the org (default: the whole org)
  --out <dir>       the folder to write (created if needed; the export's files in it are replaced) (required)
  --format ts|yaml|pulumi-import  ts (default): a Pulumi TypeScript project (Pulumi.yaml, package.json,
                    tsconfig.json, index.ts, README.md); yaml: the org-setup program's org file (org.yaml) with uids;
                    with --layout split, each project is the org-setup program with its org file; pulumi-import:
                    Pulumi's bulk import file (import.json, for \`pulumi import --file\` through the native plugin,
                    docs/native.md) and beside it the program in python/, go/, yaml/ and typescript/ (each a
                    Pulumi project: \`pulumi import --file ../import.json --generate-code=false\` there writes the
                    state, and the program declares it; not with --layout split)
  --stack <name>    also write Pulumi.<name>.yaml with platform:orgUid and platform:apiUrl (ts, or split)
  --project <name>  the Pulumi project name (default: the --out folder's name)
  --layout one|split  one (default): one project; split: a root project (what lives in the root group, and the
                    top-level groups), one project per top-level group (what is under it), and <project>-cross when
                    objects refer across two of them, wired through stack references (README.md and layout.json
                    in --out say the order to run them)
  --children <n>    with --layout split: at most n child projects, top-level groups dealt out by size
${TIMEOUT_USAGE}
  Its --format is the language it writes and its --stack the stack it writes config for (it reads none, and
  PULUMI_STACK is not used).`;

const ROOT_UID = /^[0-9a-f]{40}$/;
const UIDP = /^[0-9a-f]{40}(\/[0-9a-f]{16})+$/;
const STACK = /^[A-Za-z0-9_.-]{1,100}$/;
const PROJECT = /^[A-Za-z0-9_.-]{1,100}$/;

/** A bad argument: names the flag, its value and what is allowed. */
export class ExportUsageError extends Error {
  constructor(flag: string, value: string | undefined, allowed: string) {
    super(value === undefined ? `${flag} is required: ${allowed}` : `${flag} ${JSON.stringify(value)} is not allowed: ${allowed}`);
    this.name = "ExportUsageError";
  }
}

/** Options of {@link exportOrg}. */
export interface ExportOptions {
  org: string;
  under?: string | undefined;
  out: string;
  /** `ts` (default), `yaml`, or `pulumi-import` (Pulumi's bulk import file, `export/pulumiImport.ts`). */
  format: "ts" | "yaml" | "pulumi-import";
  stack?: string | undefined;
  project?: string | undefined;
  /** `one` (default) or `split`: a set of projects (`export/split.ts`). */
  layout?: "one" | "split" | undefined;
  /** With `layout: "split"`: at most this many child projects. */
  children?: number | undefined;
  /** Where progress goes; default stderr (a bar when it is a terminal). */
  progress?: ReadProgress & { stop(): void };
  /** Where the summary goes; default stdout. */
  write?: (s: string) => void;
}

/** What {@link exportOrg} did. */
export interface ExportResult {
  /** Files written, relative to `out`. */
  files: string[];
  /** Objects written, by kind. */
  counts: Record<string, number>;
  skipped: Skipped[];
  /** Wall time of the whole export, ms. */
  ms: number;
}

/** Checks the options. @throws ExportUsageError naming the flag, its value and what is allowed. */
export function checkExportOptions(o: { org?: string | undefined; under?: string | undefined; out?: string | undefined; format?: string | undefined; stack?: string | undefined; project?: string | undefined; layout?: string | undefined; children?: string | undefined }): void {
  if (o.org === undefined || o.org === "") throw new ExportUsageError("--org", undefined, "the org's root group uid, 40 lowercase hex characters");
  if (!ROOT_UID.test(o.org)) throw new ExportUsageError("--org", o.org, "the org's root group uid, 40 lowercase hex characters");
  if (o.under !== undefined && !(UIDP.test(o.under) && o.under.startsWith(`${o.org}/`))) {
    throw new ExportUsageError("--under", o.under, `the uid of a group under the org: ${o.org}/ then 16 hex characters per level`);
  }
  if (o.out === undefined || o.out === "") throw new ExportUsageError("--out", undefined, "the folder to write the export to");
  if (o.format !== undefined && o.format !== "ts" && o.format !== "yaml" && o.format !== "pulumi-import") throw new ExportUsageError("--format", o.format, "ts, yaml or pulumi-import");
  if (o.format === "pulumi-import" && o.layout === "split") throw new ExportUsageError("--layout", o.layout, "one with --format pulumi-import (one import file for one project)");
  if (o.format === "pulumi-import" && o.stack !== undefined) throw new ExportUsageError("--stack", o.stack, "only with --format ts or --layout split (pulumi import runs in the stack it imports into)");
  if (o.stack !== undefined && !STACK.test(o.stack)) throw new ExportUsageError("--stack", o.stack, "a stack name: letters, digits, _, . and -");
  if (o.stack !== undefined && o.format === "yaml" && o.layout !== "split") throw new ExportUsageError("--stack", o.stack, "only with --format ts or --layout split (the one org file has no program of its own)");
  if (o.project !== undefined && !PROJECT.test(o.project)) throw new ExportUsageError("--project", o.project, "a project name: letters, digits, _, . and -");
  if (o.layout !== undefined && o.layout !== "one" && o.layout !== "split") throw new ExportUsageError("--layout", o.layout, "one or split");
  if (o.children !== undefined && o.layout !== "split") throw new ExportUsageError("--children", o.children, "only with --layout split");
  if (o.children !== undefined && !/^[1-9][0-9]{0,3}$/.test(o.children)) throw new ExportUsageError("--children", o.children, "a whole number from 1 to 9999");
}

/** This package's root folder and version, from the nearest package.json named platform-pulumi above this file. */
function ownPackage(): { root: string; version: string } | undefined {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const f = path.join(dir, "package.json");
    if (existsSync(f)) {
      const pkg = JSON.parse(readFileSync(f, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "platform-pulumi" && pkg.version) return { root: dir, version: pkg.version };
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * The dependency spec a generated project gives for this package: the one that installed the package that runs
 * the export, so `npm install` in the generated project gets the same package (it is not on the npm registry
 * yet, where `^<version>` would answer 404):
 *
 * 1. the spec of `platform-pulumi` in the nearest package.json above `cwd` that names it (the user's project),
 *    a relative `file:` path rewritten relative to `outDir`;
 * 2. else, when this package runs from inside `node_modules`, the spec in the package.json of the project that
 *    installed it (the folder holding that `node_modules`, or above it; `npx`'s cache keeps one too), rewritten
 *    the same way: an export run outside any project still writes the tarball, path or git URL it came from;
 * 3. else, when this package runs from a folder that is not inside `node_modules` (a clone), `file:<that folder>`,
 *    relative to `outDir`;
 * 4. else `^<version>`.
 * @param own this package's root folder and version (default: found from this file).
 */
export function ownDependencySpec(outDir: string, cwd = process.cwd(), own: { root: string; version: string } | undefined = ownPackage()): string {
  const out = path.resolve(outDir);
  const relativeFile = (abs: string) => `file:${path.relative(out, abs) || "."}`;
  const specAbove = (from: string): string | undefined => {
    for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
      const f = path.join(dir, "package.json");
      if (existsSync(f)) {
        const pkg = JSON.parse(readFileSync(f, "utf8")) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
        const spec = pkg.dependencies?.["platform-pulumi"] ?? pkg.devDependencies?.["platform-pulumi"];
        if (spec !== undefined) {
          const file = /^file:(.*)$/.exec(spec);
          return file && !path.isAbsolute(file[1]!) ? relativeFile(path.resolve(dir, file[1]!)) : spec;
        }
      }
      if (path.dirname(dir) === dir) return undefined;
    }
  };
  const fromProject = specAbove(cwd);
  if (fromProject !== undefined) return fromProject;
  if (!own) return "*";
  const segments = own.root.split(path.sep);
  const nm = segments.lastIndexOf("node_modules");
  if (nm < 0) return relativeFile(own.root);
  return specAbove(segments.slice(0, nm).join(path.sep) || path.sep) ?? `^${own.version}`;
}

/**
 * The @pulumi/pulumi range a generated project depends on. @pulumi/pulumi 3.249 and later require Node.js 22, so
 * on Node.js 20 the project stays on 3.248.x (README, Supported toolchains).
 */
export function pulumiRangeFor(nodeVersion: string): string {
  return Number(nodeVersion.split(".")[0]) < 22 ? "~3.248.0" : "^3.248.0";
}

/** Progress on stderr: a cli-progress bar on a terminal, one plain line per finished kind otherwise. */
export function stderrProgress(stream: NodeJS.WriteStream = process.stderr): ReadProgress & { stop(): void } {
  const totals = new Map<string, number>();
  const done = new Map<string, number>();
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  if (stream.isTTY) {
    const { SingleBar, Presets } = require("cli-progress") as typeof import("cli-progress");
    const bar = new SingleBar({ format: "export |{bar}| {value}/{total} objects | {kinds}", stream, hideCursor: true, clearOnComplete: false }, Presets.shades_classic);
    bar.start(0, 0, { kinds: "" });
    const kinds = () => READ_KINDS.filter((k) => totals.has(k)).map((k) => `${k} ${done.get(k) ?? 0}/${totals.get(k)}`).join(", ");
    return {
      total(kind, count) {
        totals.set(kind, count);
        bar.setTotal(sum(totals));
        bar.update(sum(done), { kinds: kinds() });
      },
      advance(kind, count) {
        done.set(kind, (done.get(kind) ?? 0) + count);
        if ((done.get(kind) ?? 0) > (totals.get(kind) ?? 0)) totals.set(kind, done.get(kind)!);
        bar.setTotal(sum(totals));
        bar.update(sum(done), { kinds: kinds() });
      },
      stop: () => bar.stop(),
    };
  }
  const announced = new Set<string>();
  return {
    total(kind, count) {
      totals.set(kind, count);
      if (count === 0 && !announced.has(kind)) {
        announced.add(kind);
        stream.write(`export: ${kind}: 0\n`);
      }
    },
    advance(kind, count) {
      done.set(kind, (done.get(kind) ?? 0) + count);
      const n = done.get(kind)!;
      const total = totals.get(kind);
      if (total === undefined || n >= total) {
        if (!announced.has(kind)) stream.write(`export: ${kind}: ${n}\n`);
        announced.add(kind);
      } else stream.write(`export: ${kind}: ${n}/${total}\n`);
    },
    stop: () => undefined,
  };
}

/** The most objects the summary names one by one (the rest are counted). */
export const NAMED_LEFT_OUT = 50;

/**
 * The summary table: kinds × counts, then what was left out and why, then each object left out that the export
 * read (kind, path, uid; at most {@link NAMED_LEFT_OUT}, the rest counted), so none goes unnamed: no stack will
 * manage it until it is adopted another way.
 */
export function summary(counts: Record<string, number>, skipped: readonly Skipped[]): string {
  const rows = Object.entries(counts).map(([k, n]) => [k, String(n)]);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const out = [table(["kind", "exported"], [...rows, ["total", String(total)]])];
  if (skipped.length) out.push("", table(["not exported", "count", "why"], skipped.map((s) => [s.kind, String(s.count), s.why])));
  const named = skipped.flatMap((s) => (s.objects ?? []).map((o) => ({ kind: s.kind, ...o })));
  if (named.length) {
    out.push(
      "",
      `left out, and managed by no stack this export makes (adopt each with --format ts or --format pulumi-import, or declare it with its uid):`,
      ...named.slice(0, NAMED_LEFT_OUT).map((o) => `  ${o.kind} ${printable(o.path)} (uid ${printable(o.uid)})`),
      ...(named.length > NAMED_LEFT_OUT ? [`  and ${named.length - NAMED_LEFT_OUT} more`] : []),
    );
  }
  return out.join("\n");
}

/**
 * The note `--format pulumi-import` prints when objects hold text Pulumi's code generators do not all write back
 * as the same text (`generatorHazards`, docs/export.md "Pulumi's own import"): how many, the first few by kind, uid
 * and field (uids only: the text itself is not printed), and what to do instead; "" when none do.
 */
export function hazardNote(hazards: ReadonlyArray<{ kind: string; uid: string; field: string }>): string {
  if (hazards.length === 0) return "";
  const shown = hazards.slice(0, 5).map((h) => `${h.kind} ${h.uid} (${h.field})`).join(", ");
  return (
    `note: ${hazards.length} field${hazards.length === 1 ? "" : "s"} hold text with quotes, backslashes, line breaks or "$" (${shown}${hazards.length > 5 ? ", ..." : ""}), ` +
    "which Pulumi's code generators do not all write back as the same text: run `pulumi import --file` with " +
    "--generate-code=false, or export --format ts or yaml and keep that program (docs/export.md)\n\n"
  );
}

/**
 * Reads the org and writes the export.
 * @throws SettingsError when the API settings are missing; NotFoundError when the group does not exist; API errors.
 */
export async function exportOrg(o: ExportOptions): Promise<ExportResult> {
  const started = Date.now();
  const settings = resolveSettings(() => undefined);
  // The export keeps every row it lists until it has written them: its Lists share one byte budget.
  const client = clientFromSettings(settings, { walkBytesPerCommand: true });
  const progress = o.progress ?? stderrProgress();
  let model: OrgModel;
  try {
    model = buildModel(await readOrg(client, o.under ?? o.org, progress));
  } finally {
    progress.stop();
    await client.close();
  }
  let files: GeneratedFile[];
  let counts: Record<string, number>;
  let skipped: Skipped[];
  let note = "";
  let after = "";
  const project = () => o.project ?? (path.basename(path.resolve(o.out)).replace(/[^A-Za-z0-9_.-]/g, "-") || "org");
  if (o.format === "yaml" && o.layout === "split") {
    const y = writeSplitOrgFiles(model, {
      project: project(),
      children: o.children,
      stack: o.stack,
      apiUrl: settings.apiUrl,
      packageRange: (folder) => ownDependencySpec(path.join(o.out, folder)),
      pulumiRange: pulumiRangeFor(process.versions.node),
    });
    files = y.files;
    counts = y.counts;
    skipped = y.skipped;
  } else if (o.format === "pulumi-import") {
    // Beside the import file, the program in each language (export/programs.ts): the import writes the state only.
    const own = ownPackage();
    const programs = programProjects(model, {
      project: project(),
      pulumiRange: pulumiRangeFor(process.versions.node),
      packageRoot: own ? (language) => path.relative(path.resolve(o.out, language), own.root).split(path.sep).join("/") : undefined,
    });
    files = [{ path: "import.json", text: `${JSON.stringify(importFile(model), null, 2)}\n` }, ...programs.files];
    counts = declaredCounts(model);
    skipped = model.skipped;
    note = `${hazardNote(generatorHazards(model))}${programs.notes.map((n) => `${n}\n\n`).join("")}`;
    after = importCommands(o.out, programConfigKeys(model), PROGRAM_LANGUAGES.filter((l) => programs.files.some((f) => f.path.startsWith(`${l}/`))));
  } else if (o.format === "yaml") {
    const y = writeOrgFile(model);
    files = [{ path: "org.yaml", text: y.text }];
    counts = y.counts;
    skipped = y.skipped;
  } else if (o.layout === "split") {
    const layout = splitModel(model, { project: project(), children: o.children });
    files = writeSplitProjects(layout, {
      stack: o.stack,
      apiUrl: settings.apiUrl,
      packageRange: (folder) => ownDependencySpec(path.join(o.out, folder)),
      pulumiRange: pulumiRangeFor(process.versions.node),
    });
    counts = declaredCounts(model);
    skipped = model.skipped;
  } else {
    files = writeTypeScriptProject(model, {
      project: project(),
      stack: o.stack,
      apiUrl: settings.apiUrl,
      packageRange: ownDependencySpec(o.out),
      pulumiRange: pulumiRangeFor(process.versions.node),
    });
    counts = declaredCounts(model);
    skipped = model.skipped;
  }
  mkdirSync(o.out, { recursive: true });
  for (const f of files) {
    mkdirSync(path.dirname(path.join(o.out, f.path)), { recursive: true });
    writeFileSync(path.join(o.out, f.path), f.text);
  }
  const ms = Date.now() - started;
  const write = o.write ?? ((s: string) => void process.stdout.write(s));
  write(`${summary(counts, skipped)}\n\n${note}wrote ${files.map((f) => f.path).join(", ")} to ${o.out} in ${(ms / 1000).toFixed(1)} s\n${after ? `\n${after}` : ""}`);
  return { files: files.map((f) => f.path), counts, skipped, ms };
}

/**
 * `platform-pulumi export …`: parses `argv` (the arguments after `export`) and runs {@link exportOrg}.
 * @returns the exit code: 0 when written, 2 for a usage error, when the export failed, or past `--timeout` (./failure.ts).
 */
export function exportCommand(argv: readonly string[]): Promise<number> {
  const frame = {
    name: "export",
    usage: EXPORT_USAGE,
    // Its own --format (the language it writes) and --stack (the stack whose config it writes; it reads none).
    options: { org: { type: "string" }, under: { type: "string" }, out: { type: "string" }, format: { type: "string" }, stack: { type: "string" }, project: { type: "string" }, layout: { type: "string" }, children: { type: "string" } },
    check: (values) => checkExportOptions(values as Parameters<typeof checkExportOptions>[0]),
  } satisfies CommandFrame;
  return runCommand(frame, argv, async ({ values }) => {
    const v = values as Record<string, string | undefined>;
    await exportOrg({ org: v["org"]!, under: v["under"], out: v["out"]!, format: (v["format"] ?? "ts") as ExportOptions["format"], stack: v["stack"], project: v["project"], layout: v["layout"] as "one" | "split" | undefined, children: v["children"] === undefined ? undefined : Number(v["children"]) });
    return 0;
  });
}
