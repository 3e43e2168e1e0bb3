package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/shellcap/shellcap/toolset"
)

// NotRunExitCode is the exit code reported for a command that did not run
// (refused by the policy or the approver, bad arguments), as the shellcap
// CLI reports it: the shell tool's output has no outcome for "not run".
const NotRunExitCode = 125

// shellCall runs the commands of a shell_call one after the other and
// returns its shell_call_output.
func (a *Adapter) shellCall(ctx context.Context, conv *toolset.Conversation, sc responses.ResponseFunctionShellToolCall) (*responses.ResponseInputItemUnionParam, error) {
	act := sc.Action
	contents := make([]responses.ResponseFunctionShellCallOutputContentParam, 0, len(act.Commands))
	for _, command := range act.Commands {
		res, err := a.runCommand(ctx, conv, command, act.TimeoutMs, toolset.BashTool, toolset.RunCommand)
		if err != nil {
			return nil, err
		}
		contents = append(contents, shellContent(res, int(act.MaxOutputLength)))
	}
	item := responses.ResponseInputItemParamOfShellCallOutput(sc.CallID, contents)
	if act.MaxOutputLength > 0 {
		item.OfShellCallOutput.MaxOutputLength = openai.Int(act.MaxOutputLength)
	}
	item.OfShellCallOutput.Status = "completed"
	return &item, nil
}

// runCommand runs command with a timeout of timeoutMs (zero or less: the
// default) through the first of tools the toolset offers.
func (a *Adapter) runCommand(ctx context.Context, conv *toolset.Conversation, command string, timeoutMs int64, tools ...string) (*toolset.Result, error) {
	name := tools[0]
	for _, t := range tools {
		if a.opts.Toolset.Tool(t) != nil {
			name = t
			break
		}
	}
	args := map[string]any{"command": command}
	if timeoutMs > 0 {
		args["timeout_seconds"] = float64(timeoutMs) / 1000
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return a.call(ctx, conv, name, raw)
}

// shellContent is one command's entry of a shell_call_output: its stdout
// and stderr, cut to maxChars together (zero or less: no cut), then its
// notes and the conversation's notices in stderr, and its exit or timeout
// outcome.
func shellContent(res *toolset.Result, maxChars int) responses.ResponseFunctionShellCallOutputContentParam {
	var c responses.ResponseFunctionShellCallOutputContentParam
	run := res.Run
	if run == nil || run.Err != nil {
		c.Stderr = res.ModelText()
		c.Outcome.OfExit = &responses.ResponseFunctionShellCallOutputContentOutcomeExitParam{ExitCode: NotRunExitCode}
		return c
	}
	c.Stdout, c.Stderr = cutTails(run.Stdout, run.Stderr, maxChars)
	var extra []string
	for _, n := range run.Notes {
		extra = append(extra, "["+n+"]")
	}
	if res.Notices != "" {
		extra = append(extra, res.Notices)
	}
	if len(extra) > 0 {
		if c.Stderr != "" && !strings.HasSuffix(c.Stderr, "\n") {
			c.Stderr += "\n"
		}
		c.Stderr += strings.Join(extra, "\n")
	}
	if run.TimedOut {
		t := responses.NewResponseFunctionShellCallOutputContentOutcomeTimeoutParam()
		c.Outcome.OfTimeout = &t
	} else {
		c.Outcome.OfExit = &responses.ResponseFunctionShellCallOutputContentOutcomeExitParam{ExitCode: int64(run.ExitCode)}
	}
	return c
}

// cutTails cuts stdout and stderr to max characters together (zero or
// less: no cut), keeping the end of each, where errors and results are.
// A stream needing less than half the budget leaves the rest to the other.
// A cut stream begins with a line saying how many characters were left
// out (not counted in max).
func cutTails(stdout, stderr string, max int) (string, string) {
	no, ne := len([]rune(stdout)), len([]rune(stderr))
	if max <= 0 || no+ne <= max {
		return stdout, stderr
	}
	keepErr := min(ne, max/2)
	keepOut := min(no, max-keepErr)
	keepErr = min(ne, max-keepOut)
	return keepTail(stdout, no, keepOut), keepTail(stderr, ne, keepErr)
}

// keepTail keeps the last keep of the n characters of s.
func keepTail(s string, n, keep int) string {
	if keep >= n {
		return s
	}
	return fmt.Sprintf("[... %d characters omitted ...]\n", n-keep) + string([]rune(s)[n-keep:])
}

// localShellOutput is the JSON the output of a local_shell_call holds: what
// the model reads, and the command's exit code (null when it did not run)
// and whether it timed out.
type localShellOutput struct {
	Output   string        `json:"output"`
	Metadata localShellRun `json:"metadata"`
}

type localShellRun struct {
	ExitCode        *int    `json:"exit_code"`
	TimedOut        bool    `json:"timed_out"`
	DurationSeconds float64 `json:"duration_seconds"`
}

// localShellCall runs the argv of a local_shell_call as one command in a
// fresh process (run_command, else bash), in its working directory with
// its env, and returns its local_shell_call_output.
func (a *Adapter) localShellCall(ctx context.Context, conv *toolset.Conversation, lc responses.ResponseOutputItemLocalShellCall) (*responses.ResponseInputItemUnionParam, error) {
	var out localShellOutput
	command, err := localCommand(lc.Action)
	if err != nil {
		out.Output = err.Error()
	} else {
		res, err := a.runCommand(ctx, conv, command, lc.Action.TimeoutMs, toolset.RunCommand, toolset.BashTool)
		if err != nil {
			return nil, err
		}
		out.Output = res.ModelText()
		if run := res.Run; run != nil && run.Err == nil {
			code := run.ExitCode
			out.Metadata = localShellRun{ExitCode: &code, TimedOut: run.TimedOut, DurationSeconds: run.Duration.Seconds()}
		}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	item := responses.ResponseInputItemParamOfLocalShellCallOutput(lc.CallID, string(raw))
	item.OfLocalShellCallOutput.Status = "completed"
	return &item, nil
}

// envName is a name bash can export.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// localCommand is the command line that runs a local_shell action: its
// argv (the script itself when the argv is bash or sh with -c or -lc and a
// script, so the policy reads the real command), after a cd to its working
// directory and an export of its env. A user other than the current one is
// refused: the host cannot switch users.
func localCommand(act responses.ResponseOutputItemLocalShellCallAction) (string, error) {
	if act.User != "" {
		return "", fmt.Errorf("local_shell: this host cannot run commands as another user (user %s); omit user.", toolset.Echo(act.User))
	}
	if len(act.Command) == 0 {
		return "", errors.New("local_shell: the action has no command; give the argv to run in command.")
	}
	var b strings.Builder
	if act.WorkingDirectory != "" {
		b.WriteString("cd -- " + quote(act.WorkingDirectory) + " && ")
	}
	if len(act.Env) > 0 {
		b.WriteString("export")
		for _, k := range slices.Sorted(maps.Keys(act.Env)) {
			if !envName.MatchString(k) {
				return "", fmt.Errorf("local_shell: %s is not a valid environment variable name.", toolset.Echo(k))
			}
			b.WriteString(" " + k + "=" + quote(act.Env[k]))
		}
		b.WriteString(" && ")
	}
	b.WriteString(argvCommand(act.Command))
	return b.String(), nil
}

// argvCommand is the command line of argv: the script of a bash or sh -c
// (or -lc) argv, else the words quoted for bash.
func argvCommand(argv []string) string {
	if len(argv) == 3 {
		switch path.Base(argv[0]) {
		case "bash", "sh":
			if argv[1] == "-c" || argv[1] == "-lc" {
				return argv[2]
			}
		}
	}
	words := make([]string, len(argv))
	for i, w := range argv {
		words[i] = quote(w)
	}
	return strings.Join(words, " ")
}

// plainWord is a word bash reads literally without quotes.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// quote quotes s as one bash word.
func quote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
