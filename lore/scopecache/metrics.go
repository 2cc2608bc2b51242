package scopecache

import "github.com/prometheus/client_golang/prometheus"

// metrics are the cache's Prometheus collectors (names in
// docs/operations.md).
type metrics struct {
	hits, misses, shared, evictions, versionChecks, connects prometheus.Counter
	invalidations                                            *prometheus.CounterVec
	listening                                                prometheus.Gauge
	bytes, scopes                                            prometheus.GaugeFunc
}

func newMetrics(c *Cache) metrics {
	return metrics{
		hits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loregate_scope_cache_hits_total",
			Help: "Turns served from a cached scope (no scope read).",
		}),
		misses: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loregate_scope_cache_misses_total",
			Help: "Turns that read their scope from Postgres (not cached, invalidated or changed).",
		}),
		shared: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loregate_scope_cache_shared_reads_total",
			Help: "Misses that waited for another turn's read of the same scope instead of reading it again.",
		}),
		evictions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loregate_scope_cache_evictions_total",
			Help: "Scopes evicted to stay within the byte budget.",
		}),
		versionChecks: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loregate_scope_cache_version_checks_total",
			Help: "Per-turn lore_version reads made while the invalidation listener was down.",
		}),
		connects: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "loregate_scope_cache_listener_connects_total",
			Help: "Successful LISTEN connections of the invalidation listener.",
		}),
		invalidations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loregate_scope_cache_invalidations_total",
			Help: "Invalidations by source: local (a write of this process), notify (a notification), reconnect (listener connected; everything dropped).",
		}, []string{"source"}),
		listening: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "loregate_scope_cache_listening",
			Help: "1 while the invalidation listener is connected, 0 while turns check lore_version instead.",
		}),
		bytes: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "loregate_scope_cache_bytes",
			Help: "Estimated bytes of the cached scopes (snapshots and matchers).",
		}, func() float64 { return float64(c.Stats().Bytes) }),
		scopes: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "loregate_scope_cache_scopes",
			Help: "Number of cached scopes.",
		}, func() float64 { return float64(c.Stats().Scopes) }),
	}
}

func (m metrics) register(reg prometheus.Registerer) {
	reg.MustRegister(m.hits, m.misses, m.shared, m.evictions, m.versionChecks, m.connects, m.invalidations, m.listening, m.bytes, m.scopes)
}
