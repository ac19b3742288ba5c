// Command pulumi-sdkgen writes this package's SDKs for Go, Python and Node.js from its package schema
// (schema.json) with Pulumi's own code generators: pkg/v3's schema binder (`codegen/schema.BindSpec`) and
// `codegen/{go,python,nodejs}.GeneratePackage`, the code `pulumi package gen-sdk` runs inside the language hosts.
// Built from the Go module proxy by scripts/ensure-sdkgen, as tools/pulumi-schema is; keep its pkg/v3 version in
// step with tools/pulumi-cli and tools/pulumi-schema, so the SDKs do not change with the machine (docs/native.md
// "SDKs").
//
//	pulumi-sdkgen write <schema.json> <sdk> <language>...   # language: go, python or nodejs
//	pulumi-sdkgen check <schema.json> <sdk> <language>...
//
// Each language's SDK is the folder <sdk>/<language> (Go: <sdk>/go/platform/..., the schema's importBasePath's
// last element). `write` writes the generated files there and removes every other file in it, except the files
// the generators do not write and this repository keeps by hand: the Go SDK's go.mod and go.sum. `check` writes
// nothing; it prints one line per file that `write` would change (`missing <path>`, `differs <path>`, `stale
// <path>`, paths relative to <sdk>); both leave a Python build's by-products alone (build/, dist/, *.egg-info,
// __pycache__). The Python SDK also gets a README.md at its root, a copy of the generated
// platform_pulumi/README.md: its generated pyproject.toml names it, and the generator does not write it there.
//
// Exit codes: 0 written, or checked with no difference; 1 the schema did not bind, a generator failed (its error
// on stderr) or `check` found a difference; 2 bad usage or an unreadable or unwritable file.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/nodejs"
	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// tool is the generator's name in the "do not edit" banner of every generated file.
const tool = "pulumi-sdkgen"

// noPackages is the binder's loader for a schema that refers to no other package (as in tools/pulumi-schema).
type noPackages struct{}

func (noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q; this package's schema must not refer to others", pkg)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

func (l noPackages) LoadPackageReference(pkg string, v *semver.Version) (schema.PackageReference, error) {
	_, err := l.LoadPackage(pkg, v)
	return nil, err
}

func (l noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	_, err := l.LoadPackage(d.Name, nil)
	return nil, err
}

// kept are the files under a language's folder that the generators do not write and `write` keeps (relative to
// <sdk>, slash-separated): the Go SDK is a Go module of this repository, with its go.mod and go.sum.
var kept = map[string]bool{"go/platform/go.mod": true, "go/platform/go.sum": true}

func main() {
	if len(os.Args) < 5 || (os.Args[1] != "write" && os.Args[1] != "check") {
		usage()
	}
	for _, lang := range os.Args[4:] {
		if lang != "go" && lang != "python" && lang != "nodejs" {
			usage()
		}
	}
	os.Exit(run(os.Args[1] == "write", os.Args[2], os.Args[3], os.Args[4:]))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: pulumi-sdkgen write|check <schema.json> <sdk> <language>...  (language: go, python or nodejs)")
	os.Exit(2)
}

// bind reads and binds the schema afresh: each generator adds its own language's settings to the bound package,
// so every language gets a package of its own.
func bind(path string) (*schema.Package, int) {
	raw, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-sdkgen: %v\n", err)
		return nil, 2
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-sdkgen: %s is not a package schema: %v\n", path, err)
		return nil, 2
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	failed := err != nil
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			failed = true
			fmt.Fprintf(os.Stderr, "pulumi-sdkgen: schema error: %s %s\n", d.Summary, d.Detail)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-sdkgen: binding %s: %v\n", path, err)
	}
	if failed {
		return nil, 1
	}
	return pkg, 0
}

// generate returns one language's files, keyed by their path relative to <sdk> (slash-separated).
func generate(schemaPath, lang string) (map[string][]byte, int) {
	pkg, code := bind(schemaPath)
	if code != 0 {
		return nil, code
	}
	var files map[string][]byte
	var err error
	switch lang {
	case "go":
		files, err = gogen.GeneratePackage(tool, pkg, nil)
	case "python":
		files, err = python.GeneratePackage(tool, pkg, nil, noPackages{})
		if err == nil {
			files["README.md"] = files["platform_pulumi/README.md"]
		}
	case "nodejs":
		files, err = nodejs.GeneratePackage(tool, pkg, nil, nil, false, noPackages{})
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-sdkgen: generating the %s SDK: %v\n", lang, err)
		return nil, 1
	}
	out := make(map[string][]byte, len(files))
	for name, content := range files {
		out[path.Join(lang, filepath.ToSlash(name))] = content
	}
	return out, 0
}

// ignored says whether a file under <sdk> is a build's by-product, which neither `write` nor `check` counts: what
// the Python SDK's generated .gitignore names (`pip install ./sdk/python` builds in the folder itself).
func ignored(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part == "__pycache__" || part == ".mypy_cache" || strings.HasSuffix(part, ".egg-info") || strings.HasSuffix(part, ".pyc") {
			return true
		}
	}
	return strings.HasPrefix(rel, "python/build/") || strings.HasPrefix(rel, "python/dist/")
}

// existing lists the files under <sdk>/<lang> (relative to <sdk>, slash-separated); none when it does not exist.
func existing(sdk, lang string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(filepath.Join(sdk, lang), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		if !d.IsDir() {
			rel, err := filepath.Rel(sdk, p)
			if err != nil {
				return err
			}
			if !ignored(filepath.ToSlash(rel)) {
				names = append(names, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	return names, err
}

func run(write bool, schemaPath, sdk string, langs []string) int {
	var changes []string
	for _, lang := range langs {
		files, code := generate(schemaPath, lang)
		if code != 0 {
			return code
		}
		have, err := existing(sdk, lang)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pulumi-sdkgen: %v\n", err)
			return 2
		}
		for _, name := range have {
			if _, generated := files[name]; generated || kept[name] {
				continue
			}
			changes = append(changes, "stale "+name)
			if write {
				if err := os.Remove(filepath.Join(sdk, filepath.FromSlash(name))); err != nil {
					fmt.Fprintf(os.Stderr, "pulumi-sdkgen: %v\n", err)
					return 2
				}
			}
		}
		for name, content := range files {
			target := filepath.Join(sdk, filepath.FromSlash(name))
			old, err := os.ReadFile(target)
			switch {
			case os.IsNotExist(err):
				changes = append(changes, "missing "+name)
			case err != nil:
				fmt.Fprintf(os.Stderr, "pulumi-sdkgen: %v\n", err)
				return 2
			case bytes.Equal(old, content):
				continue
			default:
				changes = append(changes, "differs "+name)
			}
			if !write {
				continue
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				fmt.Fprintf(os.Stderr, "pulumi-sdkgen: %v\n", err)
				return 2
			}
			if err := os.WriteFile(target, content, 0o644); err != nil {
				fmt.Fprintf(os.Stderr, "pulumi-sdkgen: %v\n", err)
				return 2
			}
		}
	}
	sort.Strings(changes)
	for _, c := range changes {
		fmt.Println(c)
	}
	if !write && len(changes) > 0 {
		return 1
	}
	return 0
}
