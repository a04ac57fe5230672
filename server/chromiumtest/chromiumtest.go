// Package chromiumtest opens the pages a test serves or writes in headless
// Chromium, for the page tests of the Observatory (server/mcpserver) and the
// scorecard (harness/report): it finds the browser, gives a tab that
// collects every console error, warning, failed assertion and uncaught
// exception, and checks and keeps a screenshot.
//
// It sits below the server and the harness so that both can use it; it
// imports only chromedp.
package chromiumtest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Path returns the headless browser a page test drives, failing the test
// (never skipping it) when none is installed: make test and .ci/run install
// Debian's chromium. page names what could not be opened without it.
func Path(t testing.TB, page string) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatalf("chromium is not installed (apt-get install chromium, or make test, which installs it): %s cannot be opened in a browser", page)
	return ""
}

// Tab is one browser tab. Ctx drives it (chromedp.Run, chromedp.Do); the
// problems its console reports are kept for CheckConsole.
type Tab struct {
	Ctx context.Context

	mu       sync.Mutex
	problems []string
}

// Open starts the browser at path with a window of width × height and
// opens a tab in it that listens to its console. Everything it started ends
// with the test or after timeout, whichever comes first.
func Open(t testing.TB, path string, width, height int, timeout time.Duration) *Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	ctx, cancel = chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(width, height))...)
	t.Cleanup(cancel)
	ctx, cancel = chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	tab := &Tab{Ctx: ctx}
	if err := chromedp.Listen(ctx, tab.listen); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return tab
}

// listen keeps what the page's console and the browser's log say of an
// error, a warning, a failed assertion or an uncaught exception.
func (tab *Tab) listen(ev any) {
	var p string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			p = fmt.Sprintf("console.%s: %d arguments", ev.Type, len(ev.Args))
			for _, a := range ev.Args {
				p += fmt.Sprintf(" %s%s", a.Description, a.Value)
			}
		}
	case *runtime.EventExceptionThrown:
		p = "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			p += " " + ev.ExceptionDetails.Exception.Description
		}
	case *log.EventEntryAdded:
		if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
			p = fmt.Sprintf("browser log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		}
	}
	if p != "" {
		tab.mu.Lock()
		tab.problems = append(tab.problems, p)
		tab.mu.Unlock()
	}
}

// CheckConsole fails the test with each problem the tab's console has
// reported so far.
func (tab *Tab) CheckConsole(t testing.TB) {
	t.Helper()
	tab.mu.Lock()
	defer tab.mu.Unlock()
	for _, p := range tab.problems {
		t.Errorf("console: %s", p)
	}
}

// KeepScreenshot writes shot to path and returns its size, failing the test
// when shot is not a PNG or cannot be written.
func KeepScreenshot(t testing.TB, shot []byte, path string) image.Rectangle {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	return img.Bounds()
}
