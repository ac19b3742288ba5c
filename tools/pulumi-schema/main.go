// Command pulumi-schema checks and uses this package's Pulumi package schema (schema.json) with Pulumi's own
// code: pkg/v3's schema binder (`codegen/schema.BindSpec`), the same code the Pulumi CLI and its SDK generators
// run on a provider's GetSchema answer. Built from the Go module proxy by scripts/ensure-pulumi-schema, as
// tools/pulumi-cli builds the CLI; keep its pkg/v3 version in step with tools/pulumi-cli.
//
//	pulumi-schema check <schema.json>   # binds the schema; prints every diagnostic; exit 1 on an error
//
// Output of `check` (stdout, one JSON object): {"resources": N, "functions": N, "types": N, "diagnostics":
// [{"severity": "error"|"warning", "summary": "...", "detail": "..."}]}. Exit codes: 0 bound without errors,
// 1 the binder reported an error, 2 bad usage or an unreadable file.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/blang/semver"
	"github.com/hashicorp/hcl/v2"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

// noPackages is the binder's loader for a schema that refers to no other package: any reference to one is an
// error the binder reports (this package's schema stands alone).
type noPackages struct{}

func (noPackages) LoadPackage(pkg string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("the schema refers to package %q; this package's schema must not refer to others", pkg)
}

func (l noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return l.LoadPackage(d.Name, nil)
}

type diagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail,omitempty"`
}

type report struct {
	Resources   int          `json:"resources"`
	Functions   int          `json:"functions"`
	Types       int          `json:"types"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

func main() {
	if len(os.Args) != 3 || os.Args[1] != "check" {
		fmt.Fprintln(os.Stderr, "usage: pulumi-schema check <schema.json>")
		os.Exit(2)
	}
	os.Exit(check(os.Args[2]))
}

func check(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-schema: %v\n", err)
		return 2
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-schema: %s is not a package schema: %v\n", path, err)
		return 2
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	out := report{Diagnostics: []diagnostic{}}
	for _, d := range diags {
		sev := "warning"
		if d.Severity == hcl.DiagError {
			sev = "error"
		}
		out.Diagnostics = append(out.Diagnostics, diagnostic{Severity: sev, Summary: d.Summary, Detail: d.Detail})
	}
	if pkg != nil {
		out.Resources, out.Functions, out.Types = len(pkg.Resources), len(pkg.Functions), len(pkg.Types)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	if err != nil || diags.HasErrors() {
		if err != nil {
			fmt.Fprintf(os.Stderr, "pulumi-schema: %v\n", err)
		}
		return 1
	}
	return 0
}
