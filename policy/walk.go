package policy

import (
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// stmtCtx is what a statement inherits from where it appears.
type stmtCtx struct {
	stdinPipe  bool
	stdinRedir bool
	stdoutAway bool // standard output goes to a pipe or a file, not a terminal
	stdin      *stdinSource
	fds        fdTable // descriptors above 2 set by redirections
}

// stmts walks a list of statements, checking the separators between them.
func (c *checker) stmts(list []*syntax.Stmt, ctx stmtCtx) {
	for i, s := range list {
		if c.fatal != nil {
			return
		}
		c.stmt(s, ctx)
		switch {
		case s.Background || s.Disown:
			c.operator(opBackground, "&", s.Semicolon)
		case s.Coprocess:
		case s.Semicolon.IsValid():
			c.operator(opSemi, ";", s.Semicolon)
		case i < len(list)-1:
			// Commands on separate lines run one after the other, as with ";".
			c.operator(opSemi, ";", list[i+1].Pos())
		}
	}
}

// operator records a denial if the operator kind is denied.
func (c *checker) operator(kind opSet, written string, at syntax.Pos) {
	if c.p.ops&kind == 0 {
		return
	}
	c.add(Deny, ruleOperator, msgOperator(written), written, c.off(at))
}

func (c *checker) stmt(s *syntax.Stmt, ctx stmtCtx) {
	if !c.enter() {
		return
	}
	defer c.leave()
	writes := false
	ctx = c.withShellDescriptors(ctx)
	for _, r := range s.Redirs {
		c.redirect(r, &ctx, &writes)
	}
	if execOnly(s) {
		// exec with only redirections changes the descriptors of the
		// shell itself, for every later command.
		c.persist(ctx)
	}
	c.command(s.Cmd, ctx, writes)
}

func (c *checker) command(cmd syntax.Command, ctx stmtCtx, writes bool) {
	switch x := cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		c.callExpr(x, ctx, writes)
	case *syntax.Block:
		c.stmts(x.Stmts, ctx)
	case *syntax.Subshell:
		c.stmts(x.Stmts, ctx)
	case *syntax.IfClause:
		for clause := x; clause != nil; clause = clause.Else {
			c.stmts(clause.Cond, ctx)
			c.stmts(clause.Then, ctx)
		}
	case *syntax.WhileClause:
		c.stmts(x.Cond, ctx)
		c.stmts(x.Do, ctx)
	case *syntax.ForClause:
		switch loop := x.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range loop.Items {
				c.visitWord(w)
			}
		case *syntax.CStyleLoop:
			c.arithCommandEnds(loop.Lparen, loop.Rparen)
			c.arithm(loop.Init)
			c.arithm(loop.Cond)
			c.arithm(loop.Post)
		}
		c.stmts(x.Do, ctx)
	case *syntax.CaseClause:
		c.visitWord(x.Word)
		for _, item := range x.Items {
			for _, w := range item.Patterns {
				c.visitWord(w)
			}
			c.stmts(item.Stmts, ctx)
		}
	case *syntax.BinaryCmd:
		c.binary(x, ctx)
	case *syntax.FuncDecl:
		c.funcDecl(x, ctx)
	case *syntax.ArithmCmd:
		c.arithCommandEnds(x.Left, x.Right)
		c.arithm(x.X)
	case *syntax.TestClause:
		c.test(x.X)
	case *syntax.DeclClause:
		c.declClause(x, ctx, writes)
	case *syntax.LetClause:
		words := []word{c.synthetic("let", x.Let)}
		for _, e := range x.Exprs {
			c.arithm(e)
			words = append(words, word{val: c.text(e), lit: true, off: c.off(e.Pos())})
		}
		c.runCall(call{words: words, wrappers: c.src.via, stdinPipe: ctx.stdinPipe, stdinRedir: ctx.stdinRedir, writes: writes})
	case *syntax.TimeClause:
		if x.Stmt != nil {
			c.stmt(x.Stmt, ctx)
		}
	case *syntax.CoprocClause:
		if x.Name != nil {
			c.visitWord(x.Name)
		}
		c.stmt(x.Stmt, ctx)
	case *syntax.TestDecl:
		c.visitWord(x.Description)
		c.stmt(x.Body, ctx)
	}
}

// synthetic makes a literal word for a keyword-like command name.
func (c *checker) synthetic(name string, at syntax.Pos) word {
	off := c.off(at)
	return word{val: name, prefix: name, lit: true, off: off}
}

// binary walks a chain of &&, || and pipes. The parser nests chains on the
// left, so they are flattened here instead of recursing once per element.
func (c *checker) binary(b *syntax.BinaryCmd, ctx stmtCtx) {
	chain := []*syntax.BinaryCmd{b}
	for {
		x, ok := chain[len(chain)-1].X.Cmd.(*syntax.BinaryCmd)
		xs := chain[len(chain)-1].X
		if !ok || len(xs.Redirs) > 0 || xs.Negated || xs.Background || xs.Coprocess {
			break
		}
		chain = append(chain, x)
	}
	isPipe := func(op syntax.BinCmdOperator) bool { return op == syntax.Pipe || op == syntax.PipeAll }
	left := chain[len(chain)-1].X
	lctx := ctx
	lctx.stdoutAway = ctx.stdoutAway || isPipe(chain[len(chain)-1].Op)
	c.stmt(left, lctx)
	for i := len(chain) - 1; i >= 0 && c.fatal == nil; i-- {
		bc := chain[i]
		rctx := ctx
		switch bc.Op {
		case syntax.AndStmt:
			c.operator(opAnd, "&&", bc.OpPos)
		case syntax.OrStmt:
			c.operator(opOr, "||", bc.OpPos)
		case syntax.Pipe, syntax.PipeAll:
			if bc.Op == syntax.Pipe {
				c.operator(opPipe, "|", bc.OpPos)
			} else {
				c.operator(opPipeAll, "|&", bc.OpPos)
			}
			rctx = stmtCtx{stdinPipe: true, stdin: &stdinSource{pipe: left}, stdoutAway: ctx.stdoutAway, fds: ctx.fds}
		}
		if i > 0 && isPipe(chain[i-1].Op) {
			rctx.stdoutAway = true
		}
		c.stmt(bc.Y, rctx)
		left = bc.Y
	}
}

// pipeSource returns what a literal producer on the left of a pipe writes:
// echo or printf with literal arguments, or cat of a here-document. The
// policy can then check shell code piped into a shell. It is computed only
// for a command that reads a program on standard input.
func (c *checker) pipeSource(s *syntax.Stmt) *stdinSource {
	src := &stdinSource{off: c.off(s.Pos()), written: c.text(s)}
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return src
	}
	var words []word
	for _, w := range call.Args {
		rw := c.resolve(w)
		if !rw.lit {
			return src
		}
		words = append(words, rw)
	}
	switch strings.ToLower(baseName(words[0].val)) {
	case "echo":
		args := words[1:]
		newline := true
		if len(args) > 0 && args[0].val == "-n" {
			newline = false
			args = args[1:]
		}
		if len(args) > 0 && strings.HasPrefix(args[0].val, "-") {
			return src
		}
		var parts []string
		for _, a := range args {
			parts = append(parts, a.val)
		}
		src.text = strings.Join(parts, " ")
		if newline {
			src.text += "\n"
		}
		src.known = true
		if len(args) == 1 && args[0].exact {
			src.exact, src.valOff = true, args[0].valOff
		}
	case "printf":
		if len(words) == 2 && !strings.ContainsAny(words[1].val, `%\`) {
			src.text, src.known = words[1].val, true
			src.exact, src.valOff = words[1].exact, words[1].valOff
		}
	case "cat":
		if len(words) == 1 {
			for _, r := range s.Redirs {
				if isStdinRedirect(r) {
					if doc := c.redirectInput(r); doc != nil {
						return doc
					}
				}
			}
		}
	}
	return src
}

func (c *checker) funcDecl(f *syntax.FuncDecl, ctx stmtCtx) {
	names := f.Names
	if f.Name != nil {
		names = append([]*syntax.Lit{f.Name}, names...)
	}
	for _, n := range names {
		// A function named like a denied program shadows it: deny the
		// definition too, so the name cannot be reused to hide a call.
		if name := baseName(n.Value); c.p.isDenied(name) {
			c.add(Deny, ruleDeniedCommand, msgDenied(n.Value), n.Value, c.off(n.Pos()))
		}
	}
	c.stmt(f.Body, stmtCtx{stdinPipe: ctx.stdinPipe, stdinRedir: ctx.stdinRedir})
}

func (c *checker) callExpr(x *syntax.CallExpr, ctx stmtCtx, writes bool) {
	ctx = c.withShellDescriptors(ctx)
	cl := call{wrappers: c.src.via, stdinPipe: ctx.stdinPipe, stdinRedir: ctx.stdinRedir, stdoutAway: ctx.stdoutAway, stdin: ctx.stdin, writes: writes, fds: ctx.fds}
	for _, a := range x.Assigns {
		if a.Name != nil && !validName(a.Name.Value) {
			// The parser takes "0=[x] ls" for an assignment; bash runs
			// the command "0=[x]".
			c.diverges(int(a.Pos().Offset()), fmt.Sprintf("%s, which the parser reads as an assignment and bash as a command word, since %s is not a variable name", pyRepr(short(c.text(a))), pyRepr(a.Name.Value)), "the command")
		}
		c.assign(a)
		cl.env = append(cl.env, c.text(a))
		cl.assigns = append(cl.assigns, c.assignWord(a))
	}
	if len(x.Args) == 0 {
		c.assignOnly(x.Assigns)
		return
	}
	for _, w := range x.Args {
		c.visitWord(w)
		cl.words = append(cl.words, c.resolve(w))
	}
	c.runCall(cl)
}

func (c *checker) declClause(x *syntax.DeclClause, ctx stmtCtx, writes bool) {
	words := []word{c.synthetic(x.Variant.Value, x.Variant.Pos())}
	for _, a := range x.Args {
		c.assign(a)
		switch {
		case a.Naked && a.Value != nil:
			words = append(words, c.resolve(a.Value))
		case a.Naked && a.Name != nil:
			words = append(words, word{val: a.Name.Value, prefix: a.Name.Value, lit: true, off: c.off(a.Pos())})
		default:
			w := word{val: c.text(a), lit: a.Array == nil && a.Index == nil, off: c.off(a.Pos())}
			if a.Value != nil && a.Name != nil && w.lit {
				v := c.resolve(a.Value)
				w.lit = v.lit
				if v.lit {
					w.val = a.Name.Value + "=" + v.val
				}
			}
			w.prefix = w.val
			words = append(words, w)
		}
	}
	c.runCall(call{words: words, wrappers: c.src.via, stdinPipe: ctx.stdinPipe, stdinRedir: ctx.stdinRedir, writes: writes})
}

// assign visits the expansions in an assignment and checks values that the
// shell or a program later runs as code.
func (c *checker) assign(a *syntax.Assign) {
	if a.Index != nil {
		c.arithm(a.Index)
	}
	if a.Value != nil {
		c.visitWord(a.Value)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Index != nil {
				c.arithm(e.Index)
			}
			if e.Value != nil {
				c.visitWord(e.Value)
			}
		}
	}
	if a.Name != nil && a.Value != nil && !a.Append && (codeVariables[a.Name.Value] || promptVariables[a.Name.Value]) {
		c.deferred(func() { c.codeVariable(a.Name.Value, c.resolve(a.Value)) })
	}
	c.specialAssign(a)
}

// codeVariables are environment variables whose value a shell or a program
// runs as a command later: a pager, an editor, an ssh command, a prompt hook.
var codeVariables = map[string]bool{
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"GIT_PAGER": true, "GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true,
	"SUDO_ASKPASS": true, "PAGER": true, "MANPAGER": true, "SYSTEMD_PAGER": true, "EDITOR": true,
	"VISUAL": true, "BROWSER": true, "PROMPT_COMMAND": true, "LESSOPEN": true, "LESSCLOSE": true,
	"RSYNC_RSH": true, "FZF_DEFAULT_COMMAND": true,
}

// promptVariables are expanded like double-quoted strings, command
// substitutions included, each time the shell prints them (PS4 with set -x).
var promptVariables = map[string]bool{"PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true}

func (c *checker) codeVariable(name string, val word) {
	switch {
	case codeVariables[name]:
		if !val.lit {
			c.runtimeValue(name, val)
			return
		}
		code := strings.TrimLeft(val.val, "|") // LESSOPEN="|lesspipe %s"
		if strings.TrimSpace(code) == "" {
			return
		}
		if len(code) != len(val.val) {
			val.exact = false
		}
		c.nested(code, val, append(slices.Clip(c.src.via), name+"="), "the value of "+name)
	case promptVariables[name]:
		if val.lit && strings.ContainsAny(val.val, "$`") {
			c.nestedDocument(val.val, val, name+"=")
		} else if !val.lit {
			c.runtimeValue(name, val)
		}
	case startupVariables[name]:
		c.startupVariable(name, val)
	}
}

// redirect checks a redirection's operator, visits its words, and updates
// what the statement reads and writes.
func (c *checker) redirect(r *syntax.Redirect, ctx *stmtCtx, writes *bool) {
	kind, written := redirectKind(r, c)
	c.operator(kind, written, r.OpPos)
	if r.Word != nil {
		c.visitWord(r.Word)
	}
	if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc {
		c.heredocEnds(r)
	}
	if (r.Op == syntax.DplIn || r.Op == syntax.DplOut) && r.Word != nil && len(r.Word.Parts) > 0 {
		// bash reads "<&-ls" as "<&-" and a word "ls"; the parser as one
		// target "-ls".
		if l, ok := r.Word.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(l.Value, "-") && (len(l.Value) > 1 || len(r.Word.Parts) > 1) {
			c.diverges(int(r.Word.Pos().Offset()), fmt.Sprintf("%s, which bash reads as %s followed by the word %s, and the parser as one descriptor", pyRepr(c.text(r)), pyRepr(r.Op.String()+"-"), pyRepr(strings.TrimPrefix(c.text(r.Word), "-"))), "the command")
		}
	}
	if r.Hdoc != nil && !heredocQuoted(r) {
		c.visitWordIn(r.Hdoc, true)
	}
	c.bindDescriptor(r, ctx)
	if kind&(opOut|opAppend|opClobber|opAll|opAppendAll|opDupOut|opDupOutFile) != 0 && (r.N == nil || r.N.Value == "1") {
		ctx.stdoutAway = true
	}
	if kind&(opOut|opAppend|opClobber|opAll|opAppendAll|opReadWrite|opDupOutFile) != 0 && r.Word != nil {
		target := c.resolve(r.Word)
		if !target.lit || !harmlessTarget(target.val) {
			*writes = true
		}
		c.redirectTarget(target)
	}
}

func harmlessTarget(t string) bool {
	switch t {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return strings.HasPrefix(t, "/dev/fd/")
}

func redirectKind(r *syntax.Redirect, c *checker) (opSet, string) {
	switch r.Op {
	case syntax.RdrOut:
		return opOut, ">"
	case syntax.AppOut:
		return opAppend, ">>"
	case syntax.RdrIn:
		return opIn, "<"
	case syntax.RdrInOut:
		return opReadWrite, "<>"
	case syntax.DplIn:
		return opDupIn, "<&"
	case syntax.DplOut:
		if t := c.resolve(r.Word); t.lit && (t.val == "-" || isDigits(strings.TrimSuffix(t.val, "-"))) {
			return opDupOut, ">&"
		}
		return opDupOutFile, ">&"
	case syntax.RdrClob, syntax.AppClob:
		return opClobber, ">|"
	case syntax.Hdoc:
		return opHeredoc, "<<"
	case syntax.DashHdoc:
		return opHeredocTab, "<<-"
	case syntax.WordHdoc:
		return opHerestring, "<<<"
	case syntax.RdrAll, syntax.RdrAllClob:
		return opAll, "&>"
	case syntax.AppAll, syntax.AppAllClob:
		return opAppendAll, "&>>"
	}
	return 0, r.Op.String()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isStdinRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return r.N == nil || r.N.Value == "0"
	}
	return false
}

func heredocQuoted(r *syntax.Redirect) bool {
	if r.Word == nil {
		return false
	}
	for _, p := range r.Word.Parts {
		switch p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.ContainsRune(p.(*syntax.Lit).Value, '\\') {
				return true
			}
		}
	}
	return false
}

// redirectInput returns what a stdin redirection feeds, when it is literal
// text (a here-document or here-string); nil for a file.
func (c *checker) redirectInput(r *syntax.Redirect) *stdinSource {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		src := &stdinSource{off: c.off(r.OpPos), written: "a here-document"}
		if r.Hdoc == nil {
			src.known = true
			return src
		}
		quoted := heredocQuoted(r)
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				return src
			}
			if quoted {
				b.WriteString(l.Value)
			} else {
				b.WriteString(unescapeHeredoc(l.Value))
			}
		}
		src.text, src.known = b.String(), true
		if c.src.exact && len(r.Hdoc.Parts) == 1 && (quoted || !strings.ContainsRune(src.text, '\\')) && r.Op == syntax.Hdoc {
			src.exact, src.valOff = true, c.off(r.Hdoc.Pos())
		}
		return src
	case syntax.RdrIn, syntax.RdrInOut:
		if r.Word != nil && len(r.Word.Parts) == 1 {
			if _, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
				return &stdinSource{off: c.off(r.Word.Pos()), written: "a process substitution"}
			}
		}
		return nil
	case syntax.WordHdoc:
		w := c.resolve(r.Word)
		src := &stdinSource{off: w.off, written: "a here-string"}
		if w.lit {
			src.text, src.known = w.val+"\n", true
			src.exact, src.valOff = w.exact, w.valOff
		}
		return src
	}
	return nil
}

// visitWord walks the substitutions and expansions inside a word: every
// command and process substitution the shell would run.
func (c *checker) visitWord(w *syntax.Word) { c.visitWordIn(w, false) }

// visitWordIn walks a word; dq reports that it is inside double quotes or
// the body of a here-document with an unquoted delimiter, where bash reads
// single quotes in some places as plain characters.
func (c *checker) visitWordIn(w *syntax.Word, dq bool) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		c.wordPart(p, dq)
	}
}

func (c *checker) wordPart(p syntax.WordPart, dq bool) {
	switch x := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted, *syntax.ExtGlob:
	case *syntax.DblQuoted:
		for _, dp := range x.Parts {
			c.wordPart(dp, true)
		}
	case *syntax.ParamExp:
		if !c.enter() {
			return
		}
		defer c.leave()
		c.paramExp(x, dq)
	case *syntax.CmdSubst:
		if x.Backquotes {
			c.operator(opBacktick, "`", x.Left)
		} else {
			c.operator(opCmdSubst, "$(...)", x.Left)
		}
		c.stmts(x.Stmts, stmtCtx{})
	case *syntax.ArithmExp:
		c.arithm(x.X)
	case *syntax.ProcSubst:
		if x.Op == syntax.CmdIn {
			c.operator(opProcIn, "<(...)", x.OpPos)
			c.stmts(x.Stmts, stmtCtx{})
		} else {
			c.operator(opProcOut, ">(...)", x.OpPos)
			c.stmts(x.Stmts, stmtCtx{stdinPipe: true, stdin: &stdinSource{off: c.off(x.OpPos), written: c.text(x)}})
		}
	case *syntax.BraceExp:
		for _, e := range x.Elems {
			c.visitWordIn(e, dq)
		}
	}
}

// arithm walks an arithmetic expression. Chains of binary operators are
// followed iteratively on the left.
func (c *checker) arithm(e syntax.ArithmExpr) {
	if e == nil || !c.enter() {
		return
	}
	defer c.leave()
	for e != nil && c.fatal == nil {
		switch x := e.(type) {
		case *syntax.BinaryArithm:
			c.arithm(x.Y)
			e = x.X
		case *syntax.UnaryArithm:
			e = x.X
			if !c.enter() {
				return
			}
			defer c.leave()
		case *syntax.ParenArithm:
			e = x.X
			if !c.enter() {
				return
			}
			defer c.leave()
		case *syntax.FlagsArithm:
			e = x.X
		case *syntax.Word:
			// Bash expands arithmetic like double-quoted text.
			c.visitWordIn(x, true)
			c.arithText(x)
			return
		default:
			return
		}
	}
}

// test walks the expression of a [[ ]] clause.
func (c *checker) test(e syntax.TestExpr) {
	if e == nil || !c.enter() {
		return
	}
	defer c.leave()
	for e != nil && c.fatal == nil {
		switch x := e.(type) {
		case *syntax.BinaryTest:
			if arithmTestOps[x.Op] {
				// -eq and friends evaluate both operands as arithmetic.
				for _, side := range []syntax.TestExpr{x.X, x.Y} {
					if w, ok := side.(*syntax.Word); ok {
						c.arithString(w)
					}
				}
			}
			c.test(x.Y)
			e = x.X
		case *syntax.UnaryTest:
			if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar) {
				// -v NAME evaluates a subscript of NAME as arithmetic.
				c.arithString(w)
			}
			e = x.X
			if !c.enter() {
				return
			}
			defer c.leave()
		case *syntax.ParenTest:
			e = x.X
			if !c.enter() {
				return
			}
			defer c.leave()
		case *syntax.Word:
			c.visitWord(x)
			return
		default:
			return
		}
	}
}

// validName reports whether s is a name bash accepts for a variable.
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return s != ""
}
