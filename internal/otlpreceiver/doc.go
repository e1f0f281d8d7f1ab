// Package otlpreceiver holds the tests that send toolscope's spans to a
// real OpenTelemetry Collector receiver (the collector's own otlpreceiver,
// started by the test) and read them back decoded by the collector's
// pdata. It is a module of its own so that the core module never depends
// on the collector; it has no code but its tests.
package otlpreceiver
