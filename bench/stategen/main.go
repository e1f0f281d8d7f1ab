// Command stategen writes a --state file holding N tasks, for
// bench/state.sh: a state as big as many runs merged may leave (TaskCreate
// stops a list at 1,000 tasks), written through host.StateFile, so that it
// is sealed with the user's key as toolscope call seals it.
//
//	go run ./bench/stategen -n 10000 -o /tmp/big.json
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/toolscope/toolscope/builtin"
	"github.com/toolscope/toolscope/host"
)

func main() {
	n := flag.Int("n", 10000, "number of tasks")
	out := flag.String("o", "", "the state file to write (replaced)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: stategen [-n N] -o FILE")
		os.Exit(2)
	}
	os.Remove(*out)
	f := host.NewStateFile(*out)
	if err := f.Writable(); err != nil {
		fail(err)
	}
	snap, err := f.Load()
	if err != nil {
		fail(err)
	}
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	err = builtin.DataOf(snap.State).UpdateTasks(func([]builtin.Task) []builtin.Task {
		tasks := make([]builtin.Task, *n)
		for i := range tasks {
			tasks[i] = builtin.Task{ID: fmt.Sprint(i + 1), Subject: fmt.Sprintf("Write part %d of the parser", i+1),
				Description: "Parse the input into tokens, then into a tree; report errors with the line and column.",
				Status:      "pending", CreatedAt: at.Add(time.Duration(i) * time.Second)}
		}
		return tasks
	})
	if err != nil {
		fail(err)
	}
	if err := snap.Save(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "stategen:", err)
	os.Exit(1)
}
