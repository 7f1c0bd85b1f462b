package recipes

import (
	"context"
	"fmt"

	"github.com/zksim/zksim/client"
)

// held is what a lock holds, shared by Lock and SharedLock: whether its
// lock node is made, how many acquisitions it tried (for their guids),
// and from an acquisition to its release the node step 1 created and the
// lease its turn granted.
type held struct {
	ready bool // the lock node exists (made once, by the first acquisition)
	tries int
	node  string
	lease *Lease
}

// prepare makes the lock node dir, once.
func (h *held) prepare(ctx context.Context, conn client.Conn, dir string) error {
	if h.ready {
		return nil
	}
	if err := ensurePath(ctx, conn, dir); err != nil {
		return err
	}
	h.ready = true
	return nil
}

// abandon deletes node after a failed or cancelled acquisition.
func (h *held) abandon(ctx context.Context, conn client.Conn, node string) {
	abandonNode(ctx, conn, node)
	h.node = ""
}

// release is the locks' last step: delete our node (through connection
// losses) and stop following the session. Releasing nothing is the
// caller's mistake, said as what (ErrNotHeld).
func (h *held) release(ctx context.Context, conn client.Conn, what string) error {
	if h.node == "" {
		return fmt.Errorf("%w: %s", ErrNotHeld, what)
	}
	err := deleteNode(ctx, conn, h.node)
	h.node = ""
	if h.lease != nil {
		h.lease.release()
		h.lease = nil
	}
	return err
}
