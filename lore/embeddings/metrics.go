package embeddings

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the provider's Prometheus collectors (docs/operations.md#embeddings):
// loregate_embeddings_request_seconds{kind} and
// loregate_embeddings_errors_total{kind, reason}; kind is "query" (a
// turn's call) or "batch" (a job's).
type metrics struct {
	latency *prometheus.HistogramVec
	errors  *prometheus.CounterVec
}

func newMetrics() *metrics {
	return &metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "loregate_embeddings_request_seconds",
			Help:    "Embeddings provider requests by kind (query: a turn's, batch: a job's), failures included.",
			Buckets: []float64{.005, .01, .025, .05, .1, .2, .4, .8, 1.6, 3.2, 10, 30, 60},
		}, []string{"kind"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loregate_embeddings_errors_total",
			Help: "Failed embeddings provider requests by kind and reason (timeout, status, malformed, network).",
		}, []string{"kind", "reason"}),
	}
}

// register registers the collectors, or takes over those a client
// registered before on r (one set of series per process).
func (m *metrics) register(r prometheus.Registerer) error {
	if err := r.Register(m.latency); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return err
		}
		m.latency = are.ExistingCollector.(*prometheus.HistogramVec)
	}
	if err := r.Register(m.errors); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return err
		}
		m.errors = are.ExistingCollector.(*prometheus.CounterVec)
	}
	return nil
}

func (m *metrics) observe(kind string, d time.Duration, err error) {
	m.latency.WithLabelValues(kind).Observe(d.Seconds())
	if err == nil {
		return
	}
	var se *statusError
	reason := "network"
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		reason = "timeout"
	case errors.As(err, &se):
		reason = "status"
	case errors.Is(err, ErrMalformed):
		reason = "malformed"
	}
	m.errors.WithLabelValues(kind, reason).Inc()
}
