package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellcap/shellcap/envprobe"
)

// EnvironmentURI names the environment snapshot resource.
const EnvironmentURI = "shellcap://environment"

// instructions joins the configured instructions and the snapshot.
func instructions(opts Options) string {
	text := opts.Instructions
	if opts.Environment != nil {
		if text != "" {
			text += "\n\n"
		}
		text += "Commands run in this environment:\n" + opts.Environment.Text()
	}
	return text
}

func addEnvironmentResource(srv *mcp.Server, snap *envprobe.Snapshot) {
	srv.AddResource(&mcp.Resource{
		URI:         EnvironmentURI,
		Name:        "environment",
		Title:       "Shell environment",
		Description: "The shell, operating system, working directory and tool versions the commands run with.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		data, err := json.MarshalIndent(snap, "", "  ")
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: EnvironmentURI, MIMEType: "application/json", Text: string(data)},
			{URI: EnvironmentURI, MIMEType: "text/plain", Text: snap.Text()},
		}}, nil
	})
}
