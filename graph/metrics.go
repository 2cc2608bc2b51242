package graph

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/vektah/gqlparser/v2/ast"
)

// Metrics are the service's Prometheus collectors. Register them on a
// registry of your own (no global registry is used) and serve it at
// /metrics. Metrics is also a gqlgen extension that counts and times every
// operation by name.
type Metrics struct {
	// Requests counts GraphQL operations by operation name and outcome
	// (ok or error).
	Requests *prometheus.CounterVec
	// Latency observes GraphQL operation latency in seconds by name.
	Latency *prometheus.HistogramVec
	// StoreQuery observes store query latency in seconds by statement kind
	// (the first SQL keyword).
	StoreQuery *prometheus.HistogramVec
	// Activation observes the activation engine's latency in seconds.
	Activation prometheus.Histogram
}

// NewMetrics creates the collectors and registers them on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loregate_graphql_requests_total",
			Help: "GraphQL operations by operation name and outcome.",
		}, []string{"operation", "outcome"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "loregate_graphql_request_duration_seconds",
			Help:    "GraphQL operation latency by operation name.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"operation"}),
		StoreQuery: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "loregate_store_query_duration_seconds",
			Help:    "Store (Postgres) query latency by statement kind.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}, []string{"statement"}),
		Activation: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "loregate_activation_duration_seconds",
			Help:    "Activation engine latency per turn (matching, selection, budget).",
			Buckets: prometheus.ExponentialBuckets(0.00001, 2, 18),
		}),
	}
	reg.MustRegister(m.Requests, m.Latency, m.StoreQuery, m.Activation)
	return m
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = (*Metrics)(nil)

// ExtensionName implements graphql.HandlerExtension.
func (*Metrics) ExtensionName() string { return "PrometheusMetrics" }

// Validate implements graphql.HandlerExtension.
func (*Metrics) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptResponse times and counts one operation.
func (m *Metrics) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	start := time.Now()
	resp := next(ctx)
	name := operationLabel(ctx)
	outcome := "ok"
	if resp == nil || len(resp.Errors) > 0 {
		outcome = "error"
	}
	m.Requests.WithLabelValues(name, outcome).Inc()
	m.Latency.WithLabelValues(name).Observe(time.Since(start).Seconds())
	return resp
}

// operationLabel names an operation by its kind and first root field
// ("query:server", "mutation:createEntry"). Root fields are validated
// against the schema, so the label set is bounded, unlike client-chosen
// operation names.
func operationLabel(ctx context.Context) string {
	if !graphql.HasOperationContext(ctx) {
		return "invalid"
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil {
		return "invalid"
	}
	for _, sel := range oc.Operation.SelectionSet {
		if f, ok := sel.(*ast.Field); ok {
			return string(oc.Operation.Operation) + ":" + f.Name
		}
	}
	return string(oc.Operation.Operation)
}
