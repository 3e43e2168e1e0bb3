package main

import "io"

// nopCloser and nopWriteCloser let the MCP transport use the command's
// streams without closing the process's own stdin and stdout.
type nopCloser struct{ io.Reader }

func (nopCloser) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
