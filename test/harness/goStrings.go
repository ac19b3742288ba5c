// Parses a Go file (go/parser, as gofmt does) and prints, as JSON on stdout, its parse error (or ""), the value of
// every string literal, every identifier, and each call `<pkg>.New<Kind>(ctx, "<name>", …)` as "<pkg>.<Kind> <name>".
// Usage: go run goStrings.go <file.go>. Used by test/export-programs.unit.test.ts.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
)

func main() {
	out := map[string]interface{}{"error": "", "strings": []string{}, "identifiers": []string{}, "resources": []string{}}
	f, err := parser.ParseFile(token.NewFileSet(), os.Args[1], nil, parser.AllErrors)
	if err != nil {
		out["error"] = err.Error()
	}
	strs, ids, res := []string{}, []string{}, []string{}
	if f != nil {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind == token.STRING {
					s, e := strconv.Unquote(x.Value)
					if e != nil {
						out["error"] = "unquote " + x.Value + ": " + e.Error()
					}
					strs = append(strs, s)
				}
			case *ast.Ident:
				ids = append(ids, x.Name)
			case *ast.CallExpr:
				if sel, ok := x.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "New") && len(x.Args) == 3 {
					if pkg, ok := sel.X.(*ast.Ident); ok {
						if lit, ok := x.Args[1].(*ast.BasicLit); ok {
							name, _ := strconv.Unquote(lit.Value)
							res = append(res, fmt.Sprintf("%s.%s %s", pkg.Name, strings.TrimPrefix(sel.Sel.Name, "New"), name))
						}
					}
				}
			}
			return true
		})
	}
	out["strings"], out["identifiers"], out["resources"] = strs, ids, res
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}
