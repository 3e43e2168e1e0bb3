// Package capture bounds what shellcap keeps of a command's output.
//
// A [Buffer] is an [io.Writer] that keeps the first and the last bytes of a
// stream and counts what it drops in between, so a command that prints
// gigabytes costs the same memory as one that prints a line. Its cuts fall on
// UTF-8 boundaries, so the text a model reads never starts or ends with half a
// character. Optionally, the moment it starts dropping, the buffer spills the
// complete stream to a file, up to a byte budget, for callers that want to
// point the model at the full output.
//
// Quick start:
//
//	out := capture.New(32<<10, 32<<10, nil)
//	cmd.Stdout = out
//	err := cmd.Run()
//	text := out.Bytes() // head, "[... N bytes omitted ...]" marker, tail
//
// The design follows os/exec's prefixSuffixSaver: a head slice that fills
// once and a tail ring that is overwritten in place, so memory stays at the
// two caps plus a small constant whatever is written.
package capture
