package envprobe

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shellcap/shellcap/internal/leaktest"
)

// testMarkName=testMark is in the environment of every command the tests
// run, so that TestMain can find processes they leaked.
const testMarkName = "ENVPROBE_TEST_MARK"

var testMark = strings.TrimPrefix(leaktest.Mark(testMarkName), testMarkName+"=")

func TestMain(m *testing.M) {
	os.Exit(leaktest.Main(m, testMarkName+"="+testMark, 10*time.Second))
}
