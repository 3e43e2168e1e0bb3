package jobs

import (
	"errors"
	"reflect"
	"syscall"
)

// errAttr reports process attributes a Confiner set that a job's spec
// cannot carry to the supervisor: the job is refused rather than started
// less confined than the Confiner asked.
var errAttr = errors.New("the Confiner set process attributes (SysProcAttr) that a job cannot carry to its supervisor")

// attrOf turns the process attributes of a confined command into the
// spec's serialisable form; nil for nil. It fails closed: attributes it
// would not reproduce exactly are an error.
func attrOf(sp *syscall.SysProcAttr) (*procAttr, error) {
	if sp == nil {
		return nil, nil
	}
	a := attrFrom(sp)
	if !reflect.DeepEqual(a.sys(), sp) {
		return nil, errAttr
	}
	return a, nil
}

// maxExtraFiles bounds the descriptors a Confiner may pass to a job.
const maxExtraFiles = 16
