package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// ErrUnreachable says none of a run's servers can be reached: every
// address fails to resolve or refuses (or ignores) a connection.
var ErrUnreachable = errors.New("no server can be reached")

// Reachable checks, before a run begins, that at least one of servers
// ("host:port") resolves and accepts a TCP connection within timeout, so
// that a run that cannot be made says so at once rather than after its
// clients' session timeouts. It returns nil, or an error wrapping
// ErrUnreachable that says what each address did.
func Reachable(ctx context.Context, servers []string, timeout time.Duration) error {
	var d net.Dialer
	var why []string
	for _, addr := range servers {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		c, err := d.DialContext(cctx, "tcp", addr)
		cancel()
		if err == nil {
			c.Close()
			return nil
		}
		why = append(why, fmt.Sprintf("%s: %v", addr, err))
	}
	return fmt.Errorf("%w: %s", ErrUnreachable, strings.Join(why, "; "))
}
