package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// texter is a result with the text a model reads.
type texter interface{ Text() string }

// emit prints a result on the command's stdout: as indented JSON with
// jsonOut, otherwise its text, ending in a newline.
func emit(cmd *cobra.Command, r texter, jsonOut bool) error {
	out := cmd.OutOrStdout()
	if jsonOut {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(r)
	}
	text := r.Text()
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(out, text)
	return err
}
