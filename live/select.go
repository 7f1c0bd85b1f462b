package live

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/zksim/zksim/client"
)

// timer is a client.Timer on the wall clock.
type timer struct {
	t     *time.Timer
	done  chan struct{} // closed when it fires
	fired atomic.Bool
}

// NewTimer implements client.Clock.
func (c *Conn) NewTimer(d time.Duration) client.Timer {
	tm := &timer{done: make(chan struct{})}
	tm.t = time.AfterFunc(d, func() {
		tm.fired.Store(true)
		close(tm.done)
	})
	return tm
}

// Poll implements client.Waitable.
func (tm *timer) Poll() (zk.Event, bool) { return zk.Event{}, tm.fired.Load() }

// Stop implements client.Timer.
func (tm *timer) Stop() bool { return tm.t.Stop() }

// Select implements client.Clock: a plain select over the waitables'
// channels and ctx. It polls them in order first and again after every
// wake-up, so that when several are ready the lowest index wins, as in the
// simulator.
func (c *Conn) Select(ctx context.Context, ws ...client.Waitable) (int, zk.Event, error) {
	for _, w := range ws {
		if _, err := wakeup(w); err != nil {
			return -1, zk.Event{}, err
		}
	}
	cases := make([]reflect.SelectCase, 0, len(ws)+1)
	for {
		for i, w := range ws {
			if ev, ok := w.Poll(); ok {
				return i, ev, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return -1, zk.Event{}, err
		}
		// The channels are taken afresh each time: an event cleared since
		// waits on a new one.
		cases = append(cases[:0], reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ctx.Done())})
		for _, w := range ws {
			ch, _ := wakeup(w)
			cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(ch)})
		}
		for _, w := range ws { // a watch also wakes when RemoveWatches ends it
			if w, isWatch := w.(*watch); isWatch && w.gone != nil {
				cases = append(cases, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(w.gone)})
			}
		}
		chosen, v, ok := reflect.Select(cases)
		if chosen > 0 && chosen <= len(ws) {
			if w, isWatch := ws[chosen-1].(*watch); isWatch {
				// The receive took the watch's event: keep it for Poll.
				ev, _ := v.Interface().(zk.Event)
				w.keep(ev, ok)
			}
		}
	}
}

// wakeup is the channel on which w signals that it may be ready.
func wakeup(w client.Waitable) (any, error) {
	switch w := w.(type) {
	case *watch:
		return w.ch, nil
	case *subscription:
		return w.ready, nil
	case *persistentWatch:
		return w.ready, nil
	case *timer:
		return w.done, nil
	case *task:
		return w.done, nil
	case *event:
		return w.signal(), nil
	case client.Waiter:
		return wakeup(w.WaitsOn())
	}
	return nil, fmt.Errorf("live: Select on a %T, which is not a live watch, subscription, timer, task, event or mailbox", w)
}
