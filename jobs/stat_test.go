//go:build linux

package jobs_test

import "syscall"

type syscallStat struct{ size, blocks int64 }

func statFile(path string, out *syscallStat) error {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return err
	}
	out.size, out.blocks = st.Size, st.Blocks
	return nil
}
