// Package proc holds the process-group plumbing shellcap needs on Linux and
// other Unix systems: waiting for a child without reaping it, signalling a
// whole group, and listing the members of a group from /proc.
package proc
