package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"2", 2 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"-3", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999999", maxRetryAfter + time.Second, true}, // capped, not overflowed
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"Sunday, 01-Mar-26 12:00:10 GMT", 10 * time.Second, true}, // RFC 850, still legal
	}
	for _, tt := range tests {
		h := http.Header{}
		if tt.header != "" {
			h.Set("Retry-After", tt.header)
		}
		got, ok := parseRetryAfter(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Retry-After %q = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	top := func() float64 { return 0.999999 }
	tests := []struct {
		n    int
		f    failure
		want time.Duration // with jitter at its top
	}{
		{1, failure{}, 499999500 * time.Nanosecond},
		{2, failure{}, 999999 * time.Microsecond},
		{7, failure{}, 29999970 * time.Microsecond}, // 32s capped to 30s
		{100, failure{}, 29999970 * time.Microsecond},
		{3, failure{hasRetryAfter: true, retryAfter: 7 * time.Second}, 7 * time.Second}, // exact, no jitter
	}
	for _, tt := range tests {
		if got := backoff(tt.n, &tt.f, top); got != tt.want {
			t.Errorf("backoff(%d, %+v) = %v, want %v", tt.n, tt.f, got, tt.want)
		}
	}
	if got := backoff(5, &failure{}, func() float64 { return 0 }); got != 0 {
		t.Errorf("full jitter at 0 = %v, want 0", got)
	}
}
