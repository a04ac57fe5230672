package target

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
)

// claimPortEnv, set to a port in a re-executed test binary's environment,
// makes HoldPortClaimIfAsked claim that port, say "claimed" and hold the
// claim until its standard input closes.
const claimPortEnv = "TBBENCH_TEST_CLAIM_PORT"

// HoldPortClaimIfAsked is the other process of
// TestAPortAnotherProcessClaimedIsPassedOver; TestMain calls it first.
func HoldPortClaimIfAsked() {
	p, err := strconv.Atoi(os.Getenv(claimPortEnv))
	if err != nil {
		return
	}
	if !claimPort(p) {
		fmt.Println("not claimed")
		os.Exit(1)
	}
	fmt.Println("claimed")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}

// Canceled is Conn.canceled, for tests.
func (c *Conn) Canceled(ctx context.Context, err error) error { return c.canceled(ctx, err) }
