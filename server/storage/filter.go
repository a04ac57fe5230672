package storage

import (
	"slices"
	"strings"
)

// Matches reports whether s passes f's tag and search filters (Limit is
// not a per-session matter). Backends that keep session metadata outside a
// Registry use it to select sessions as the Registry does.
func (f Filter) Matches(s *Session) bool {
	if len(f.AnyTags) > 0 && !slices.ContainsFunc(f.AnyTags, func(t string) bool { return slices.Contains(s.Tags, t) }) {
		return false
	}
	return f.Search == "" || matches(s, strings.ToLower(f.Search))
}
