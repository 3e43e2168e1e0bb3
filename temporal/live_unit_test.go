package temporal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/shellcap/shellcap"
)

// TestLiveCallDeliver: a call's sink hands each byte once, in order,
// whatever the overlap of the heartbeats it reads; a gap is marked as the
// library marks omitted bytes and the rest starts on a character
// boundary; a new attempt starts over; nothing is handed after close.
func TestLiveCallDeliver(t *testing.T) {
	chunk := func(s string) liveChunk { return liveChunk{Data: []byte(s)} }
	errChunk := func(s string) liveChunk { return liveChunk{Stderr: true, Data: []byte(s)} }
	for _, tc := range []struct {
		name  string
		beats []liveOutput
		want  string
	}{
		{"one", []liveOutput{{Attempt: 1, Chunks: []liveChunk{chunk("ab")}}}, "out:ab"},
		{"growing", []liveOutput{
			{Attempt: 1, Chunks: []liveChunk{chunk("ab")}},
			{Attempt: 1, Chunks: []liveChunk{chunk("abcd")}},
			{Attempt: 1, Chunks: []liveChunk{chunk("abcd"), errChunk("E")}},
		}, "out:ab|out:cd|err:E"},
		{"same twice", []liveOutput{
			{Attempt: 1, Chunks: []liveChunk{chunk("ab")}},
			{Attempt: 1, Chunks: []liveChunk{chunk("ab")}},
		}, "out:ab"},
		{"window moved", []liveOutput{
			{Attempt: 1, Chunks: []liveChunk{chunk("abc")}},
			{Attempt: 1, Start: 2, Chunks: []liveChunk{chunk("cdef")}},
		}, "out:abc|out:def"},
		{"gap", []liveOutput{
			{Attempt: 1, Chunks: []liveChunk{chunk("ab\n")}},
			{Attempt: 1, Start: 10, Chunks: []liveChunk{chunk("xyz")}},
		}, "out:ab\n|out:\n[... 7 bytes omitted ...]\n|out:xyz"},
		{"gap first", []liveOutput{
			{Attempt: 1, Start: 5, Chunks: []liveChunk{errChunk("xyz")}},
		}, "err:[... 5 bytes omitted ...]\n|err:xyz"},
		{"gap inside a character", []liveOutput{
			{Attempt: 1, Start: 4, Chunks: []liveChunk{chunk("\xa9t\u00e9")}}, // the end of "é", then "té"
		}, "out:[... 5 bytes omitted ...]\n|out:t\u00e9"},
		{"retried attempt", []liveOutput{
			{Attempt: 1, Chunks: []liveChunk{chunk("first")}},
			{Attempt: 2, Chunks: []liveChunk{chunk("fi")}},
		}, "out:first|out:fi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			l := &liveCall{output: func(s shellcap.Stream, p []byte) {
				name := "out:"
				if s == shellcap.Stderr {
					name = "err:"
				}
				got = append(got, name+string(p))
			}}
			for _, b := range tc.beats {
				l.deliver(b)
			}
			if g := strings.Join(got, "|"); g != tc.want {
				t.Errorf("handed %q, want %q", g, tc.want)
			}
			l.close()
			n := len(got)
			l.deliver(liveOutput{Attempt: 9, Chunks: []liveChunk{chunk("late")}})
			if len(got) != n {
				t.Errorf("handed %q after close", got[n:])
			}
		})
	}
}

// TestTrackerLive: the live output keeps the latest liveBytes of both
// streams by stream offset, and counts what it dropped in its start.
func TestTrackerLive(t *testing.T) {
	tr := newTracker()
	tr.keepLive("c1", 1)
	var all bytes.Buffer
	for i := range 300 {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, 1000)
		stream := shellcap.Stdout
		if i%3 == 0 {
			stream = shellcap.Stderr
		}
		tr.output(stream, p)
		all.Write(p)
	}
	live := tr.liveCopy()
	var kept []byte
	for _, c := range live.Chunks {
		kept = append(kept, c.Data...)
	}
	if live.CallID != "c1" || live.Attempt != 1 || len(kept) != liveBytes || live.Start != int64(all.Len()-liveBytes) {
		t.Fatalf("call %q attempt %d: kept %d bytes from %d, want %d from %d", live.CallID, live.Attempt, len(kept), live.Start, liveBytes, all.Len()-liveBytes)
	}
	if !bytes.Equal(kept, all.Bytes()[live.Start:]) {
		t.Error("the live output is not the latest bytes")
	}
	for i, c := range live.Chunks {
		if i > 0 && c.Stderr == live.Chunks[i-1].Stderr {
			t.Errorf("chunks %d and %d of one stream are not merged", i-1, i)
		}
	}
	if p := tr.progress(); p.StdoutBytes+p.StderrBytes != int64(all.Len()) || p.StderrBytes != 100*1000 {
		t.Errorf("progress counts %d + %d bytes", p.StdoutBytes, p.StderrBytes)
	}
	if newTracker().liveCopy() != nil {
		t.Error("a tracker of a call that asked for no live output keeps it")
	}
}
