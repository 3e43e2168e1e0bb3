//go:build linux

package temporal

import (
	"context"
	"fmt"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	sdktemporal "go.temporal.io/sdk/temporal"
)

func sprint(v any) string { return fmt.Sprintf("%+v", v) }

// attemptCounter counts the attempts of each activity a worker runs; with
// failFirst it fails the first attempt of that activity after it ran.
type attemptCounter struct {
	interceptor.WorkerInterceptorBase
	failFirst string

	mu     sync.Mutex
	counts map[string]int
}

func (c *attemptCounter) reset() {
	c.mu.Lock()
	c.counts = nil
	c.mu.Unlock()
}

func (c *attemptCounter) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts[name]
}

func (c *attemptCounter) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &countingActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}, c: c}
}

type countingActivity struct {
	interceptor.ActivityInboundInterceptorBase
	c *attemptCounter
}

func (a *countingActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	info := activity.GetInfo(ctx)
	a.c.mu.Lock()
	if a.c.counts == nil {
		a.c.counts = map[string]int{}
	}
	a.c.counts[info.ActivityType.Name]++
	a.c.mu.Unlock()
	out, err := a.Next.ExecuteActivity(ctx, in)
	if err == nil && info.ActivityType.Name == a.c.failFirst && info.Attempt == 1 {
		return nil, sdktemporal.NewApplicationError("test: the first attempt fails after it ran", "test.Retry")
	}
	return out, err
}
