package shellcap

import (
	"sync"

	"github.com/shellcap/shellcap/policy"
)

// maxCachedDecisions bounds the decision cache. Agents repeat commands
// (`go test ./...`, `git status`) far more often than they write new ones.
const maxCachedDecisions = 512

// decisionCache remembers the policy's decisions by exact command text.
// The policy is a pure function of the command, so a cached decision is
// the decision.
type decisionCache struct {
	mu sync.Mutex
	m  map[string]policy.Decision
}

// check returns p's decision on command, from the cache when it is there.
func (c *decisionCache) check(p *policy.Policy, command string) policy.Decision {
	c.mu.Lock()
	d, ok := c.m[command]
	c.mu.Unlock()
	if ok {
		return d
	}
	d = p.Check(command)
	if len(command) > 4096 {
		return d // long commands are rarely repeated; keep the cache small
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedDecisions {
		c.m = make(map[string]policy.Decision, 64) // start over rather than track age
	}
	c.m[command] = d
	c.mu.Unlock()
	return d
}
