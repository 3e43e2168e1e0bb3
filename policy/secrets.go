package policy

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Files that hold secrets. The approval tiers ask before a command reads
// one, and see through globs and braces (cat /e??/shadow), a directory
// changed to first (cd ~/.ssh && cat id_rsa, env -C ~/.ssh cat id_rsa),
// and file names piped into xargs (find ~/.ssh | xargs cat).
var (
	// secretAbsolute are absolute paths.
	secretAbsolute = []string{
		"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d/x", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ed25519_key",
		"/etc/ssh/ssh_host_ecdsa_key", "/etc/ssl/private/key.pem", "/etc/shadow-", "/etc/security/opasswd",
		"/var/run/secrets/kubernetes.io/serviceaccount/token", "/run/secrets/kubernetes.io/serviceaccount/token",
		"/var/run/secrets/eks.amazonaws.com/serviceaccount/token", "/proc/self/environ", "/proc/1/environ",
		"/etc/kubernetes/admin.conf", "/etc/rancher/k3s/k3s.yaml", "/root/.ssh/id_rsa",
	}
	// secretHome are paths under the home directory.
	secretHome = []string{
		".ssh/id_rsa", ".ssh/id_ed25519", ".ssh/id_ecdsa", ".ssh/id_dsa", ".ssh/config", ".ssh/known_hosts", ".ssh/authorized_keys",
		".aws/credentials", ".aws/config", ".aws/sso/cache/x.json", ".config/gcloud/credentials.db",
		".config/gcloud/application_default_credentials.json", ".config/gcloud/access_tokens.db", ".azure/accessTokens.json",
		".azure/msal_token_cache.json", ".oci/config", ".config/doctl/config.yaml", ".kube/config", ".docker/config.json",
		".config/gh/hosts.yml", ".config/glab-cli/config.yml", ".config/hub", ".pgpass", ".my.cnf", ".vault-token",
		".cargo/credentials.toml", ".cargo/credentials", ".netrc", ".npmrc", ".yarnrc.yml", ".pypirc", ".gem/credentials",
		".git-credentials", ".gnupg/private-keys-v1.d/x.key", ".gnupg/secring.gpg", ".password-store/x.gpg",
		".terraform.d/credentials.tfrc.json", ".s3cfg", ".boto", ".databrickscfg", ".config/heroku/config.json",
		".local/share/keyrings/login.keyring", ".config/op/config", ".config/rclone/rclone.conf", ".mozilla/firefox/x/logins.json",
		".bash_history", ".zsh_history", ".config/sops/age/keys.txt", ".config/containers/auth.json", ".wrangler/config/default.toml",
		".fly/config.yml", ".config/flyctl/config.yml", ".vercel/auth.json", ".netlify/config.json", ".config/configstore/firebase-tools.json",
	}
	// secretNames are file names that hold secrets wherever they are.
	secretNames = []string{
		".env", ".env.local", ".env.production", ".envrc", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".netrc", ".pgpass",
		".git-credentials", "credentials.json", "service-account.json", ".vault-token", "secrets.yaml", "secrets.yml",
		"terraform.tfstate", ".npmrc", ".pypirc", "kubeconfig", "key.pem", "private.key", "server.key", "tls.key", "private.pem",
	}
	// secretDirs are directories that hold secrets.
	secretDirs = []string{".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", ".oci", ".password-store", ".vault"}
	// secretGlobNames are the file names a glob's last component is tried
	// against wherever it points: names that hold secrets whatever the
	// project ("*.yaml" may match secrets.yaml, which could be anything).
	secretGlobNames = []string{".env", ".env.local", ".env.production", ".envrc", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa",
		".netrc", ".pgpass", ".git-credentials", ".vault-token", ".npmrc", ".pypirc"}
	// secretFragments are substrings of a literal path that mark a secret.
	secretFragments = []string{
		"/etc/shadow", "/etc/gshadow", "/etc/sudoers", ".ssh/", "/.ssh", ".aws/", ".gnupg", ".kube/config", ".docker/config.json",
		".netrc", ".npmrc", ".pypirc", ".config/gcloud", ".azure/", "/environ", ".git-credentials", "id_rsa", "id_ed25519", "id_ecdsa",
		".config/gh/", ".pgpass", ".vault-token", ".cargo/credentials", ".oci/", ".config/doctl", "/serviceaccount", ".password-store",
		".terraform.d/credentials", ".s3cfg", ".boto", ".databrickscfg", ".my.cnf", "/etc/ssl/private", "ssh_host_", "/etc/kubernetes/",
		"k3s.yaml", ".config/op/", "rclone.conf", "containers/auth.json", "sops/age",
	}
	// secretSamples are concrete paths a glob is tried against.
	secretSamples = func() []string {
		var out []string
		out = append(out, secretAbsolute...)
		for _, h := range secretHome {
			out = append(out, "~/"+h, "/root/"+h, "/home/user/"+h, h, "./"+h)
		}
		for _, n := range secretGlobNames {
			out = append(out, n, "./"+n)
		}
		return out
	}()
)

// secretLiteral reports whether a literal path names a file with secrets.
func secretLiteral(v string) bool {
	if strings.IndexByte(v, '.') < 0 && !hasDotlessSecret(v) {
		return false // the common case, checked fast
	}
	base := path.Base(v)
	if v == ".env" || strings.HasSuffix(v, "/.env") || base == ".envrc" {
		return true
	}
	if strings.HasPrefix(base, ".env.") {
		switch strings.TrimPrefix(base, ".env.") {
		case "example", "sample", "template", "dist", "defaults":
			return false // committed templates without values
		}
		return true
	}
	for _, d := range secretDirs {
		if base == d || strings.HasSuffix(v, "/"+d) || strings.HasSuffix(v, "/"+d+"/") {
			return true
		}
	}
	for _, n := range secretNames {
		if base == n {
			return true
		}
	}
	for _, s := range secretFragments {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}

// secretGlob reports whether a glob pattern (after brace expansion) can
// match a file with secrets: against the sample paths, and by its last
// component against the secret file names.
func secretGlob(pattern string) bool {
	if secretLiteral(strings.NewReplacer("*", "", "?", "", "[", "", "]", "").Replace(pattern)) && !strings.ContainsAny(pattern, "*?[") {
		return true
	}
	for _, s := range secretSamples {
		if globMatch(pattern, s) {
			return true
		}
	}
	last := path.Base(pattern)
	for _, n := range secretGlobNames {
		if globMatch(last, n) {
			return true
		}
	}
	// A directory pattern over a secret directory: ~/.ss*, /e?c.
	for _, s := range secretSamples {
		for d := path.Dir(s); d != "." && d != "/" && d != "~"; d = path.Dir(d) {
			if globMatch(pattern, d) {
				return true
			}
		}
	}
	return false
}

// globMatch matches a path against a glob as bash does: component by
// component, and a component that does not start with a dot does not
// match a name that does ("*" is not ".env").
func globMatch(pattern, name string) bool {
	ps, ns := strings.Split(pattern, "/"), strings.Split(name, "/")
	if len(ps) != len(ns) {
		return false
	}
	for i := range ps {
		if strings.HasPrefix(ns[i], ".") && !strings.HasPrefix(ps[i], ".") && !strings.HasPrefix(ps[i], `\.`) && ns[i] != "." && ns[i] != ".." {
			return false
		}
		if ok, _ := path.Match(ps[i], ns[i]); !ok {
			return false
		}
	}
	return true
}

// globOnly returns the glob pattern of a word made only of literal text,
// quotes, globs and braces (no expansion or substitution), with quoted glob
// characters escaped.
func globOnly(w word) (string, bool) {
	if w.node == nil {
		return "", false
	}
	var b strings.Builder
	quote := func(s string) {
		for i := 0; i < len(s); i++ {
			if strings.IndexByte(`*?[]{}\`, s[i]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(s[i])
		}
	}
	for _, part := range w.node.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				quote(decodeANSIC(p.Value))
			} else {
				quote(p.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				l, ok := dp.(*syntax.Lit)
				if !ok {
					return "", false
				}
				quote(unescapeDouble(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// expandBraces expands the unescaped {a,b} groups of a pattern, as bash
// does, up to limit results; {1..3} sequences are kept as a "*".
func expandBraces(p string, limit int) []string {
	open, closing, commas := -1, -1, []int(nil)
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open, commas = i, nil
			}
			depth++
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth == 0 {
				closing = i
			}
		}
		if closing >= 0 {
			break
		}
	}
	if open < 0 || closing < 0 {
		return []string{p}
	}
	pre, body, post := p[:open], p[open+1:closing], p[closing+1:]
	var alts []string
	if len(commas) == 0 {
		if strings.Contains(body, "..") {
			alts = []string{"*"}
		} else {
			return []string{p}
		}
	} else {
		start := open + 1
		for _, cm := range commas {
			alts = append(alts, p[start:cm])
			start = cm + 1
		}
		alts = append(alts, p[start:closing])
	}
	var out []string
	for _, a := range alts {
		for _, e := range expandBraces(pre+a+post, limit) {
			if len(out) >= limit {
				return out
			}
			out = append(out, e)
		}
	}
	return out
}

// secretArg reports an argument that names, or may match, a file that
// holds secrets, relative to dir when the command runs elsewhere.
func secretArg(args []word, dir string) string {
	// A directory with no dot and no secret name in it adds nothing to a
	// literal path that has none either (the common case: cd src).
	plainDir := strings.IndexByte(dir, '.') < 0 && !hasDotlessSecret(dir)
	for _, a := range args {
		if a.lit && plainDir && strings.IndexByte(a.val, '.') < 0 && !hasDotlessSecret(a.val) {
			continue
		}
		var pats []string
		switch {
		case a.lit:
			pats = []string{a.val}
		default:
			g, ok := globOnly(a)
			if !ok {
				continue
			}
			pats = expandBraces(g, 64)
		}
		for _, p := range pats {
			fulls := []string{p}
			if dir != "" && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
				for _, d := range strings.Split(dir, "\n") {
					fulls = append(fulls, d+"/"+p)
				}
			}
			for _, full := range fulls {
				hit := false
				if a.lit {
					hit = secretLiteral(full)
				} else {
					hit = secretGlob(full)
				}
				if hit {
					return fmt.Sprintf("%s may hold secrets, so reading it needs the user's approval.", pyRepr(a.val))
				}
			}
		}
	}
	return ""
}

// secretProducer reports that the file names a command gets from xargs
// may be secret files: the producer on the left of the pipe names them
// (find ~/.ssh, ls ~/.aws, echo .env), or is a find that could list them.
func (c *checker) secretProducer(cl *call) string {
	if cl.stdin == nil || cl.stdin.pipe == nil {
		return ""
	}
	ce, ok := cl.stdin.pipe.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 {
		return "xargs gets the file names from a command the policy cannot read, which may list secret files, so it needs the user's approval."
	}
	var ws []word
	for _, a := range ce.Args {
		ws = append(ws, c.resolve(a))
	}
	if r := secretArg(ws[1:], c.cwd); r != "" {
		return r
	}
	if identity(baseName(ws[0].val)) != "find" {
		return ""
	}
	named := false
	for i, a := range ws[1:] {
		if a.lit && (a.val == "-name" || a.val == "-iname" || a.val == "-path" || a.val == "-ipath") && i+2 < len(ws) {
			named = true
			if pat := ws[i+2]; !pat.lit || secretGlob(pat.val) || secretGlob("x/"+pat.val) || anyNameMatches(pat.val) {
				return fmt.Sprintf("find can list files that hold secrets (%s) for xargs, so reading them needs the user's approval.", pyRepr(pat.val))
			}
		}
	}
	if !named {
		return "find lists every file for xargs, which may include files that hold secrets (.env, keys), so reading them needs the user's approval."
	}
	return ""
}

// changeDir follows a literal cd or pushd, so that later relative paths
// are judged where they point.
func (c *checker) changeDir(cl *call) {
	switch cl.name() {
	case "cd", "pushd":
	default:
		return
	}
	args := cl.args()
	if len(args) > 0 && args[0].lit && strings.HasPrefix(args[0].val, "-") && args[0].val != "-" {
		args = args[1:]
	}
	// Every directory changed to is kept (up to a bound), because a cd in
	// a subshell or a branch may or may not be in force later: relative
	// paths are judged against each of them.
	dir := ""
	switch {
	case len(args) == 0:
		dir = "~"
	case args[0].lit && args[0].val == "-":
		return
	case args[0].lit:
		dir = args[0].val
	default:
		g, ok := globOnly(args[0])
		if !ok {
			return
		}
		dir = g
	}
	dirs := strings.Split(c.cwd, "\n")
	next := joinDir(dirs[len(dirs)-1], dir)
	if c.cwd == "" {
		next = dir
	}
	if len(c.cwd)+len(next) > 512 || len(next) > 256 {
		return // many cd's in a row: keep the check linear; the ones kept still count
	}
	if c.cwd == "" {
		c.cwd = next
	} else {
		c.cwd += "\n" + next
	}
}

// joinDir resolves dir against base.
func joinDir(base, dir string) string {
	if base == "" || strings.HasPrefix(dir, "/") || strings.HasPrefix(dir, "~") {
		return dir
	}
	return path.Join(base, dir)
}

// dotlessSecrets are the parts of secret paths without a dot; a path with
// no dot and none of these is no secret.
var dotlessSecrets = []string{"shadow", "sudoers", "environ", "id_", "serviceaccount", "private", "ssh_host", "kubernetes", "sops/age", "kubeconfig"}

func hasDotlessSecret(v string) bool {
	for _, s := range dotlessSecrets {
		if strings.Contains(v, s) {
			return true
		}
	}
	return false
}

// anyNameMatches reports whether a find -name pattern matches any of the
// secret file names, key files included.
func anyNameMatches(pat string) bool {
	for _, n := range secretNames {
		if globMatch(pat, n) {
			return true
		}
	}
	return false
}
