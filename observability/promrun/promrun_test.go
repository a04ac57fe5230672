package promrun_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thoughtbox-bench/tbbench/observability/internal/promtest"
)

// TestAFailedScrapeDoesNotHideWhatTheMomentSaw: a scrape that fails marks
// the target's gauges stale, so that an instant query "now" finds none;
// WaitScrapedAfter finds no moment while every scrape fails, and the
// moment it returns still shows the values of the successful scrape after
// later scrapes failed.
func TestAFailedScrapeDoesNotHideWhatTheMomentSaw(t *testing.T) {
	var failing atomic.Bool
	exporter := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if failing.Load() {
			http.Error(w, "down", http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "probe_gauge 7")
	}))
	defer exporter.Close()
	prom := promtest.Start(t, fmt.Sprintf(`global:
  scrape_interval: 500ms
scrape_configs:
  - job_name: probe
    static_configs:
      - targets: [%q]
`, strings.TrimPrefix(exporter.URL, "http://")), nil)
	prom.WaitUp(t, "probe")
	ctx := context.Background()

	at, err := prom.WaitScrapedAfter(ctx, "probe", time.Now(), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	failed := time.Now()
	for len(prom.Query(t, `up{job="probe"} == 0`)) == 0 {
		if time.Since(failed) > 30*time.Second {
			t.Fatal("no failed scrape in 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := prom.Query(t, "probe_gauge"); len(got) != 0 {
		t.Errorf("after a failed scrape the gauge is still there now (%v): this test's premise does not hold", got)
	}
	if got := prom.QueryAt(t, "probe_gauge", at); len(got) != 1 || got[0].Value != "7" {
		t.Errorf("at the moment returned, probe_gauge = %v, want one series at 7", got)
	}

	if _, err := prom.WaitScrapedAfter(ctx, "probe", failed, 2*time.Second); err == nil {
		t.Error("a moment was found while every scrape failed")
	}
	failing.Store(false)
	recovered := time.Now()
	at, err = prom.WaitScrapedAfter(ctx, "probe", recovered, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if at.Before(recovered) {
		t.Errorf("the moment %s is before the scrapes it waited for (%s)", at, recovered)
	}
	if got := prom.QueryAt(t, "probe_gauge", at); len(got) != 1 || got[0].Value != "7" {
		t.Errorf("after recovery, probe_gauge = %v at the moment returned, want one series at 7", got)
	}
}
