package mcpserver_test

import "testing"

// The crash tests of the fs backend, run on the SQLite backend: a server
// killed with SIGKILL while three connections write loses no acknowledged
// thought, and two server processes sharing one database, killed in turn
// while writers move their sessions between them, lose nothing and report
// no false damage.

func TestSQLiteKillNineLosesNoAcknowledgedThought(t *testing.T) {
	killNineLosesNothing(t, "THOUGHTBOX_STORAGE=sqlite")
}

func TestSQLiteKillNineCyclesWithTwoProcesses(t *testing.T) { killNineCycles(t, "sqlite") }
