package shellcap_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryExportedNameHasADocComment: in every package of the module,
// each exported function, method (of an exported type), type, constant
// and variable has a doc comment (a constant or variable in a documented
// group may have a line comment instead), so `go doc` explains every name
// it lists.
func TestEveryExportedNameHasADocComment(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, pkg := range pkgs {
			if pkg.Name == "main" {
				continue
			}
			for _, f := range pkg.Files {
				for _, decl := range f.Decls {
					for _, missing := range undocumented(decl) {
						t.Errorf("%s: %s has no doc comment", fset.Position(missing.Pos()), missing.Name)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// undocumented returns the exported names decl declares without a doc
// comment.
func undocumented(decl ast.Decl) []*ast.Ident {
	var out []*ast.Ident
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() || d.Doc != nil {
			return nil
		}
		if d.Recv != nil && !exportedReceiver(d.Recv) {
			return nil
		}
		return []*ast.Ident{d.Name}
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
					out = append(out, s.Name)
				}
			case *ast.ValueSpec:
				documented := s.Doc != nil || s.Comment != nil || (d.Doc != nil && (d.Lparen.IsValid() || len(d.Specs) == 1))
				for _, n := range s.Names {
					if n.IsExported() && !documented {
						out = append(out, n)
					}
				}
			}
		}
	}
	return out
}

// exportedReceiver reports whether a method's receiver type is exported.
func exportedReceiver(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	typ := recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}
