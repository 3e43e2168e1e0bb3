package shellcap_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// integrationGuides are the per-framework guides of docs/integrations and
// the adapter each one is about.
var integrationGuides = []struct{ guide, adapter string }{
	{"anthropic.md", "adapters/anthropic"},
	{"openai.md", "adapters/openai"},
	{"adk.md", "adapters/adk"},
	{"eino.md", "adapters/eino"},
	{"genkit.md", "adapters/genkit"},
	{"langchaingo.md", "adapters/langchaingo"},
}

// corePackages are the core module's packages a guide may name, by their
// package names, with their directories.
var corePackages = map[string]string{
	"shellcap": ".",
	"toolset":  "toolset",
	"jobs":     "jobs",
	"policy":   "policy",
	"session":  "session",
}

const modulePath = "github.com/shellcap/shellcap"

// TestIntegrationGuides: every adapter has a guide in docs/integrations,
// linked from its index and from the adapter's README; every relative link
// of the guides and the index resolves; every Go code block parses; and
// every name of an adapter or a core package that a guide or the index
// gives (in code or in prose, as pkg.Name, pkg.Type.Field or
// pkg.Type{Field: ...}) exists, so a guide cannot name a symbol the code
// does not have.
func TestIntegrationGuides(t *testing.T) {
	const dir = "docs/integrations"
	index := readDoc(t, filepath.Join(dir, "README.md"))
	checkLinks(t, filepath.Join(dir, "README.md"), index)
	core := map[string]*pkgAPI{}
	for name, d := range corePackages {
		core[name] = loadAPI(t, d)
	}
	// The index names packages by their package names.
	indexAPIs := map[string]*pkgAPI{}
	for name, api := range core {
		indexAPIs[name] = api
	}
	for _, g := range integrationGuides {
		api := loadAPI(t, g.adapter)
		indexAPIs[api.name] = api
	}
	checkProse(t, filepath.Join(dir, "README.md"), index, indexAPIs, "")
	for _, g := range integrationGuides {
		t.Run(g.guide, func(t *testing.T) {
			file := filepath.Join(dir, g.guide)
			text := readDoc(t, file)
			if !regexp.MustCompile(`\]\(` + regexp.QuoteMeta(g.guide) + `\)`).MatchString(index) {
				t.Errorf("%s does not link to %s", filepath.Join(dir, "README.md"), g.guide)
			}
			readme := readDoc(t, filepath.Join(g.adapter, "README.md"))
			if !strings.Contains(readme, "](../../docs/integrations/"+g.guide+")") {
				t.Errorf("%s/README.md does not link to its guide %s", g.adapter, file)
			}
			checkLinks(t, file, text)

			adapter := loadAPI(t, g.adapter)
			apis := map[string]*pkgAPI{}
			for name, api := range core {
				apis[name] = api
			}
			blocks := parseGoBlocks(t, file, text)
			alias := adapterAlias(blocks, modulePath+"/"+g.adapter)
			if alias == "" {
				t.Fatalf("%s: no Go code block imports %s/%s", file, modulePath, g.adapter)
			}
			apis[alias] = adapter
			used := 0
			for _, f := range blocks {
				used += checkCode(t, file, f, apis, alias)
			}
			used += checkProse(t, file, text, apis, alias)
			if used == 0 {
				t.Errorf("%s names no identifier of %s", file, g.adapter)
			}
		})
	}
}

// pkgAPI is what a package exports: its top-level names, and each type's
// fields and methods.
type pkgAPI struct {
	dir     string
	name    string
	names   map[string]bool
	members map[string]map[string]bool // type -> field and method names
}

// loadAPI reads the exported API of the package in dir from its non-test
// source files.
func loadAPI(t *testing.T, dir string) *pkgAPI {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatalf("parse %s: %v", dir, err)
	}
	if len(pkgs) != 1 {
		t.Fatalf("%s holds %d packages, want 1", dir, len(pkgs))
	}
	api := &pkgAPI{dir: dir, names: map[string]bool{}, members: map[string]map[string]bool{}}
	member := func(typ, name string) {
		if api.members[typ] == nil {
			api.members[typ] = map[string]bool{}
		}
		api.members[typ][name] = true
	}
	for name, pkg := range pkgs {
		api.name = name
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						api.names[d.Name.Name] = true
					} else if typ := receiverName(d.Recv); typ != "" {
						member(typ, d.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							api.names[s.Name.Name] = true
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fld := range st.Fields.List {
									for _, n := range fld.Names {
										member(s.Name.Name, n.Name)
									}
									if len(fld.Names) == 0 {
										member(s.Name.Name, embeddedName(fld.Type))
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								api.names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return api
}

// receiverName is the name of a method's receiver type.
func receiverName(recv *ast.FieldList) string {
	if len(recv.List) == 0 {
		return ""
	}
	return embeddedName(recv.List[0].Type)
}

// embeddedName is the type name of a receiver or an embedded field.
func embeddedName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// has reports whether the package exports name, and, when member is not
// empty, whether type name has a field or method member.
func (p *pkgAPI) has(name, member string) bool {
	if !p.names[name] || !ast.IsExported(name) {
		return false
	}
	return member == "" || p.members[name][member]
}

func readDoc(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return string(b)
}

var linkRE = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// checkLinks checks that every relative link of the Markdown file resolves.
func checkLinks(t *testing.T, file, text string) {
	t.Helper()
	for _, m := range linkRE.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		p := filepath.Join(filepath.Dir(file), filepath.FromSlash(target))
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s links to %s, which does not exist", file, m[1])
		}
	}
}

var goBlockRE = regexp.MustCompile("(?s)```go\n(.*?)\n```")

// parseGoBlocks parses every Go code block of a guide, as a file (an import
// block, declarations) or else as the body of a function (statements).
func parseGoBlocks(t *testing.T, file, text string) []*ast.File {
	t.Helper()
	var out []*ast.File
	for i, m := range goBlockRE.FindAllStringSubmatch(text, -1) {
		src := m[1]
		f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+src, 0)
		if err != nil {
			var err2 error
			f, err2 = parser.ParseFile(token.NewFileSet(), "", "package p\nfunc _() {\n"+src+"\n}\n", 0)
			if err2 != nil {
				t.Errorf("%s: Go block %d does not parse: %v", file, i+1, err2)
				continue
			}
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		t.Errorf("%s has no Go code block", file)
	}
	return out
}

// adapterAlias is the name the guide's import blocks give the adapter.
func adapterAlias(files []*ast.File, importPath string) string {
	for _, f := range files {
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != importPath {
				continue
			}
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path.Base(p)
		}
	}
	return ""
}

// checkCode checks the names a code block gives through the packages of
// apis, and returns how many of them belong to the adapter (alias).
func checkCode(t *testing.T, file string, f *ast.File, apis map[string]*pkgAPI, alias string) int {
	t.Helper()
	used := 0
	qualified := func(e ast.Expr) (*pkgAPI, string, string) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return nil, "", ""
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || apis[id.Name] == nil {
			return nil, "", ""
		}
		return apis[id.Name], id.Name, sel.Sel.Name
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if api, pkg, name := qualified(x); api != nil {
				if !api.has(name, "") {
					t.Errorf("%s: code names %s.%s, which package %s does not export", file, pkg, name, api.dir)
				}
				if pkg == alias {
					used++
				}
			}
		case *ast.CompositeLit:
			typ := x.Type
			if u, ok := typ.(*ast.UnaryExpr); ok {
				typ = u.X
			}
			if api, pkg, name := qualified(typ); api != nil {
				for _, el := range x.Elts {
					kv, ok := el.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					if key, ok := kv.Key.(*ast.Ident); ok && !api.has(name, key.Name) {
						t.Errorf("%s: code sets %s.%s{%s: ...}, which is not a field of %s", file, pkg, name, key.Name, name)
					}
				}
			}
		}
		return true
	})
	return used
}

// checkProse checks names written as pkg.Name or pkg.Type.Member anywhere
// in the guide's text, and returns how many belong to the adapter.
func checkProse(t *testing.T, file, text string, apis map[string]*pkgAPI, alias string) int {
	t.Helper()
	used := 0
	for pkg, api := range apis {
		re := regexp.MustCompile(`(^|[^\w./])` + regexp.QuoteMeta(pkg) + `\.([A-Z]\w*)(\.([A-Z]\w*))?`)
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			name, member := m[2], m[4]
			if !api.has(name, "") {
				t.Errorf("%s names %s.%s, which package %s does not export", file, pkg, name, api.dir)
				continue
			}
			if member != "" && api.members[name] != nil && !api.has(name, member) {
				t.Errorf("%s names %s.%s.%s, which is not a field or method of %s", file, pkg, name, member, name)
			}
			if pkg == alias {
				used++
			}
		}
	}
	return used
}
