package shellcap_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestPackageDocs checks that every package in the module has exactly one
// package doc comment.
func TestPackageDocs(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments|parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		for name, pkg := range pkgs {
			var docs []string
			for file, f := range pkg.Files {
				if f.Doc != nil {
					docs = append(docs, filepath.Base(file))
				}
			}
			if len(docs) != 1 {
				t.Errorf("package %s in %s has %d package doc comments (%v), want exactly 1", name, path, len(docs), docs)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
