package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/shellcap/shellcap"
	"github.com/shellcap/shellcap/internal/core"
	"github.com/shellcap/shellcap/jobs"
)

// Remote carries the toolset's calls to where the commands run (a fleet's
// session workflows, see the temporal module's front door). With
// Options.Remote set the toolset offers the tools, with their usual names,
// schemas and descriptions, and forwards every call; it runs nothing
// itself.
type Remote interface {
	// Call runs the tool named name with the raw arguments in the
	// conversation named conversation (empty: a stateless call) and
	// returns what the tool gave back there: its text, notices, structured
	// result and error flag, or Pending when the command awaits the user's
	// answer (hooks.Answer carries it on the next round). The error is
	// non-nil only when the call could not be carried out at all (ctx
	// ended, the remote is unreachable).
	//
	// hooks are the host's. A Remote that can carry the host's way of
	// asking (none, hooks.Approve, hooks.Interrupt) and an approver's
	// failure to the remote side should ask hooks.Approve itself and
	// return no Pending unless hooks.Interrupt, so its texts are a local
	// toolset's. A Pending it returns to a host without Interrupt is asked
	// about here through hooks.Approve, and an approver that fails (or is
	// missing) then reads as the user declining, worded unlike a local
	// toolset's refusal. It should hand the command's output to
	// hooks.Output as it arrives.
	Call(ctx context.Context, conversation, name string, args json.RawMessage, hooks Hooks) (*Result, error)
	// Close ends the conversation named conversation on the remote side
	// (its bash shell); its jobs keep running.
	Close(conversation string) error
}

// maxRemoteRounds bounds the approval rounds of one remote call: a
// command asked about and answered runs on the next round; a call whose
// commands are asked about again and again is refused.
const maxRemoteRounds = 8

// remoteHandler is the handler of every tool of a remote toolset.
func (ts *Toolset) remoteHandler(name string) func(context.Context, *Conversation, json.RawMessage) (*Result, error) {
	return func(ctx context.Context, c *Conversation, args json.RawMessage) (*Result, error) {
		conv := c.id
		if c.stateless {
			conv = ""
		}
		hooks := hooksOf(ctx)
		for range maxRemoteRounds {
			res, err := ts.opts.Remote.Call(ctx, conv, name, args, hooks)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return errorResult(fmt.Sprintf("The server could not carry out this call: %v", err)), nil
			}
			if res == nil {
				return errorResult("The server could not carry out this call: the remote gave no result."), nil
			}
			if res.Pending == nil || hooks.Interrupt {
				return res, nil
			}
			// The remote side remembers what its user asked to.
			answer := ts.askRemote(ctx, hooks, *res.Pending)
			hooks.Answer = &answer
		}
		return errorResult("The server could not carry out this call: its commands were asked about too many times."), nil
	}
}

// askRemote asks the host's user about a remote command, as Approve asks
// about a local one: with no way to ask, or when asking fails, the
// command is refused with the reason.
func (ts *Toolset) askRemote(ctx context.Context, hooks Hooks, q Question) Answer {
	if hooks.Approve == nil {
		return Answer{Command: q.Command, Reason: ErrNoApprover.Error()}
	}
	a, err := hooks.Approve(ctx, q)
	if err != nil {
		return Answer{Command: q.Command, Reason: "approval could not be asked for (" + err.Error() + ")"}
	}
	a.Command = q.Command
	return a
}

// settings are the limits the tool definitions state: the Shell's, else,
// for a remote toolset without one, shellcap's defaults.
func (ts *Toolset) settings() core.Settings {
	if ts.opts.Shell != nil {
		return core.Of(ts.opts.Shell).Settings
	}
	return core.Settings{DefaultTimeout: shellcap.DefaultTimeout, MaxTimeout: shellcap.DefaultMaxTimeout}
}

// shellTimeouts are the shell tool's default and longest foreground wait.
func (ts *Toolset) shellTimeouts() (def, max time.Duration) {
	if ts.opts.Jobs != nil {
		return ts.opts.Jobs.ShellTimeouts()
	}
	st := ts.settings()
	max = min(jobs.MaxShellTimeout, st.MaxTimeout)
	return min(st.DefaultTimeout, max), max
}

// errRemoteOptions reports options that mean running commands here, which
// a remote toolset does not do.
var errRemoteOptions = errors.New("toolset: with Options.Remote the commands run remotely: Jobs, Executor and ForegroundTimeout must be unset")

// ConversationOf returns the conversation of the toolset call in ctx (a
// stateless call's too), nil outside a toolset call: for a Remote that
// carries what the host set on it (see [Conversation.SeesAllJobs]).
func ConversationOf(ctx context.Context) *Conversation {
	if st, _ := ctx.Value(callKey{}).(*call); st != nil {
		return st.conv
	}
	return nil
}

// SeesAllJobs reports whether the conversation sees every job
// (Options.ShareJobs, or [Conversation.SeeAllJobs]).
func (c *Conversation) SeesAllJobs() bool {
	c.ts.mu.Lock()
	defer c.ts.mu.Unlock()
	return c.all
}
