package observatory

import "strconv"

// The session statuses of the Observatory.
const (
	StatusActive    = "active"
	StatusCompleted = "completed"
	// StatusAbandoned exists in the protocol; this server never sets it.
	StatusAbandoned = "abandoned"
)

// Session is a reasoning session as the Observatory shows it.
type Session struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Tags        []string `json:"tags"`
	CreatedAt   string   `json:"createdAt"`
	Status      string   `json:"status"`
	CompletedAt string   `json:"completedAt,omitempty"`
}

// Thought is one thought as the Observatory shows it. Revision and branch
// fields are left out when absent.
type Thought struct {
	ID                string `json:"id"`
	ThoughtNumber     int    `json:"thoughtNumber"`
	TotalThoughts     int    `json:"totalThoughts"`
	Thought           string `json:"thought"`
	NextThoughtNeeded bool   `json:"nextThoughtNeeded"`
	Timestamp         string `json:"timestamp"`
	IsRevision        bool   `json:"isRevision,omitempty"`
	RevisesThought    int    `json:"revisesThought,omitempty"`
	BranchID          string `json:"branchId,omitempty"`
	BranchFromThought int    `json:"branchFromThought,omitempty"`
}

// Branch is a branch of a session: the main-chain thought it leaves from
// and its thoughts in arrival order.
type Branch struct {
	ID                string    `json:"id"`
	FromThoughtNumber int       `json:"fromThoughtNumber"`
	Thoughts          []Thought `json:"thoughts"`
}

// Snapshot is a session with its thoughts: the main chain (revisions
// included) and the branches by id.
type Snapshot struct {
	Session  Session           `json:"session"`
	Thoughts []Thought         `json:"thoughts"`
	Branches map[string]Branch `json:"branches"`
}

// ThoughtID is a thought's id: <session>-<number> on the main chain,
// <session>-<branch>-<number> on a branch.
func ThoughtID(session, branch string, number int) string {
	if branch == "" {
		return session + "-" + strconv.Itoa(number)
	}
	return session + "-" + branch + "-" + strconv.Itoa(number)
}

// ParentID is the id the broadcasts give as a thought's parent: the
// main-chain thought numbered one less (also for branch thoughts), or nil
// for thought 1.
func ParentID(session string, number int) *string {
	if number <= 1 {
		return nil
	}
	id := ThoughtID(session, "", number-1)
	return &id
}
