package sim

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// CreateProtectedEphemeralSequential implements client.Conn, step for step
// as go-zookeeper/zk v1.0.4 does, its weaknesses included: the last path
// component becomes "_c_<guid>-<name>"; it creates an ephemeral sequential
// node, at most three times; after a ConnectionClosed it lists the parent,
// without a sync, for a child carrying its guid (on a server that has not
// applied the lost create yet it finds none, creates again, and leaves an
// orphan), and a child whose name starts with "_c_" but is shorter than a
// guid makes it panic, as the library's slice does; after an expiry it
// creates again. The guid is drawn from the client's name and a count,
// not from the run's source: it is unique (a count per process, whatever
// the session), and exploring schedules does not turn it into another
// client's.
func (c *Client) CreateProtectedEphemeralSequential(ctx context.Context, path string, data []byte, acl []zk.ACL) (string, error) {
	if !validClientPath(path, true) {
		return "", zk.ErrInvalidPath
	}
	c.p.guids++
	sum := sha1.Sum(fmt.Appendf(nil, "%s/%d", c.p.t.name, c.p.guids))
	guid := hex.EncodeToString(sum[:16])
	parts := strings.Split(path, "/")
	parts[len(parts)-1] = client.ProtectedPrefix + guid + "-" + parts[len(parts)-1]
	root := strings.Join(parts[:len(parts)-1], "/")
	protected := strings.Join(parts, "/")
	var err error
	for i := 0; i < 3; i++ {
		var p string
		p, err = c.Create(ctx, protected, data, zk.FlagEphemeralSequential, acl)
		switch {
		case err == nil:
			return p, nil
		case errors.Is(err, zk.ErrSessionExpired):
		case errors.Is(err, zk.ErrConnectionClosed):
			kids, _, err := c.Children(ctx, root)
			if err != nil {
				return "", err
			}
			for _, k := range kids {
				if strings.HasPrefix(k, client.ProtectedPrefix) && k[len(client.ProtectedPrefix):len(client.ProtectedPrefix)+32] == guid {
					return root + "/" + k, nil
				}
			}
		default:
			return "", err
		}
	}
	return "", err
}
