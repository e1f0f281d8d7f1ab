package tool_test

import (
	"io"
	"slices"
	"testing"

	"github.com/toolscope/toolscope/tool"
)

type closeFunc func() error

func (f closeFunc) Close() error { return f() }

// TestStateRuntime: a runtime value is made once per key, Close closes
// them all, the last made first, once, and a closed state makes none.
func TestStateRuntime(t *testing.T) {
	st := tool.NewState(nil)
	var closed []string
	type keyA struct{}
	type keyB struct{}
	made := 0
	mk := func(name string) func() io.Closer {
		return func() io.Closer {
			made++
			return closeFunc(func() error { closed = append(closed, name); return nil })
		}
	}
	a := st.Runtime(keyA{}, mk("a"))
	if st.Runtime(keyA{}, mk("a2")) == nil || made != 1 || a == nil {
		t.Fatalf("made %d", made)
	}
	st.Runtime(keyB{}, mk("b"))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(closed, []string{"b", "a"}) {
		t.Errorf("closed %q, want [b a]", closed)
	}
	if v := st.Runtime(keyA{}, mk("c")); v != nil || made != 2 {
		t.Errorf("a closed state made %v (made %d)", v, made)
	}
	// The slots outlive Close: the state can still be saved.
	if _, err := st.MarshalJSON(); err != nil {
		t.Error(err)
	}
}
