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
		return printJSON(cmd, r)
	}
	text := r.Text()
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	_, err := fmt.Fprint(out, text)
	return err
}

// printJSON prints v as indented JSON on the command's stdout.
func printJSON(cmd *cobra.Command, v any) error {
	enc := json.NewEncoder(cmd.OutOrStdout())
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
