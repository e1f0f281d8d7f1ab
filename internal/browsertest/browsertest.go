// Package browsertest drives a real Chromium (Debian's chromium package,
// which .ci/run installs) for the console's browser tests, in the core
// module and in the Temporal module: start it, run steps with a time
// limit, wait for what a page says, save checked screenshots.
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Start starts a headless Chromium (Debian's chromium package, which
// .ci/run installs) with a fresh profile; without it the test is skipped,
// except in CI, where it fails.
func Start(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed; .ci/run installs Debian's chromium package for the console's browser tests")
		}
		t.Skip("chromium is not installed (apt-get install chromium): the console's browser tests need it")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	// The first action starts the browser, on a context without a timeout
	// (a timeout there would end the browser); the steps get one each.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// Do runs steps with a time limit; an error says what the page says.
func Do(ctx context.Context, steps ...chromedp.Action[chromedp.Void]) error {
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	err := chromedp.Do(sctx, steps...)
	if err != nil {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		page, _ := chromedp.Run(pctx, chromedp.Evaluate[string]("location.href + '\\n' + (document.body ? document.body.innerText : '')"))
		err = fmt.Errorf("%w; the page at %s", err, page)
	}
	return err
}

// Shot saves a screenshot of the page into dir and checks it is a PNG.
func Shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot %s is not a picture (%d bytes)", name, len(png))
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, name+".png")); err != nil || fi.Size() == 0 {
		t.Fatalf("screenshot %s: %v", name, err)
	}
}

// Says waits until the text of the page, or of the first element sel
// names when sel is not "", contains want, across page loads (an answer
// loads the run page again; a poll does not survive it).
func Says(sel, want string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		el := "document.body"
		if sel != "" {
			el = fmt.Sprintf("document.querySelector(%q)", sel)
		}
		expr := fmt.Sprintf("(function(){ var e = %s; return e ? e.innerText : ''; })()", el)
		for {
			got, err := chromedp.Evaluate[string](expr)(ctx, tg)
			if err == nil && strings.Contains(got, want) {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				page, _ := chromedp.Evaluate[string]("document.body ? document.body.innerText : ''")(context.WithoutCancel(ctx), tg)
				return chromedp.Void{}, fmt.Errorf("%q never said %q (%v); the page says:\n%s", sel, want, ctx.Err(), page)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

// Holds waits until the JavaScript expression expr is true.
func Holds(expr string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		for {
			ok, err := chromedp.Evaluate[bool](expr)(ctx, tg)
			if err == nil && ok {
				return chromedp.Void{}, nil
			}
			select {
			case <-ctx.Done():
				return chromedp.Void{}, fmt.Errorf("%s never held: %v", expr, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}
