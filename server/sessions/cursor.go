package sessions

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/thoughtbox-bench/tbbench/server/storage"
)

// A list cursor marks the last session of a page: its update time and id,
// with the tags the listing was filtered by. It is signed with a key of
// this server process, so a cursor that is not ours (made up, changed, from
// another server or from before a restart) is refused rather than read.
type cursorPayload struct {
	UpdatedAt string   `json:"u"`
	ID        string   `json:"i"`
	Tags      []string `json:"t,omitempty"`
}

// errForeignCursor refuses a cursor this server did not issue.
var errForeignCursor = errors.New("cursor is not one this server issued (made up, changed, or from before a restart): list again without cursor")

func (s *Host) sign(payload []byte) []byte {
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write(payload)
	return mac.Sum(nil)[:16]
}

// encodeCursor returns the cursor that continues a listing after last.
func (s *Host) encodeCursor(last storage.Session, tags []string) string {
	payload, _ := json.Marshal(cursorPayload{UpdatedAt: last.UpdatedAt, ID: last.ID, Tags: tags})
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(s.sign(payload))
}

// decodeCursor checks a cursor's signature and that it continues a listing
// with the same tags.
func (s *Host) decodeCursor(cursor string, tags []string) (cursorPayload, error) {
	var p cursorPayload
	enc := base64.RawURLEncoding
	body, sig, ok := strings.Cut(cursor, ".")
	if !ok {
		return p, errForeignCursor
	}
	payload, err1 := enc.DecodeString(body)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.sign(payload)) || json.Unmarshal(payload, &p) != nil {
		return p, errForeignCursor
	}
	if !slices.Equal(p.Tags, tags) {
		return p, errors.New("cursor continues a listing with other tags: give the same tags as the call that returned it")
	}
	return p, nil
}

// after returns the index in all (most recently updated first) where the
// page after the cursor starts. Sessions updated since the cursor was made
// have moved ahead of it and are not repeated; when the cursor's own session
// has moved, the sessions that shared its update time are all kept, so
// none is missed.
func (p cursorPayload) after(all []storage.Session) int {
	firstEqual := -1
	for i, s := range all {
		switch {
		case s.UpdatedAt > p.UpdatedAt:
			continue
		case s.UpdatedAt == p.UpdatedAt:
			if s.ID == p.ID {
				return i + 1
			}
			if firstEqual < 0 {
				firstEqual = i
			}
		default:
			if firstEqual >= 0 {
				return firstEqual
			}
			return i
		}
	}
	if firstEqual >= 0 {
		return firstEqual
	}
	return len(all)
}
