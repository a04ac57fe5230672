package pace

import "testing"

func TestParseRealTime(t *testing.T) {
	for _, m := range []RealTime{RealTimeOff, RealTimeAuto, RealTimeOn} {
		got, err := ParseRealTime(m.String())
		if err != nil || got != m {
			t.Errorf("ParseRealTime(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	for _, s := range []string{"", "yes", "Auto", "realtime"} {
		if _, err := ParseRealTime(s); err == nil {
			t.Errorf("ParseRealTime(%q) accepted", s)
		}
	}
}
