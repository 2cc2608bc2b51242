package embeddings

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// limiter spaces request starts at least 1/rate seconds apart.
type limiter struct {
	mu   sync.Mutex
	gap  time.Duration
	next time.Time
}

func newLimiter(rate float64) *limiter {
	return &limiter{gap: time.Duration(float64(time.Second) / rate)}
}

// wait blocks until the next start is allowed, or ctx ends.
func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := time.Now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	l.next = at.Add(l.gap)
	l.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// queryCache keeps the last n query vectors by text hash, least recently
// used out first.
type queryCache struct {
	mu  sync.Mutex
	n   int
	lru *list.List // of *cached, most recent first
	by  map[string]*list.Element
}

type cached struct {
	key string
	vec []float32
}

func newQueryCache(n int) *queryCache {
	return &queryCache{n: n, lru: list.New(), by: map[string]*list.Element{}}
}

func (c *queryCache) get(key string) []float32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.by[key]; ok {
		c.lru.MoveToFront(el)
		return el.Value.(*cached).vec
	}
	return nil
}

func (c *queryCache) put(key string, vec []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.by[key]; ok {
		el.Value.(*cached).vec = vec
		c.lru.MoveToFront(el)
		return
	}
	c.by[key] = c.lru.PushFront(&cached{key, vec})
	for c.lru.Len() > c.n {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.by, old.Value.(*cached).key)
	}
}
