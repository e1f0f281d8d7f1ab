// Package tracing records OpenTelemetry spans of agent runs, model turns
// and tool calls, following the GenAI semantic conventions (OpenTelemetry
// semantic conventions v1.41.0), and exports them over OTLP/HTTP. It has
// no dependency: spans are recorded by a small tracer of its own and
// encoded (protobuf or JSON) by hand, so that a toolscope built without
// tracing configured carries no OpenTelemetry SDK, gRPC or protobuf
// runtime.
//
// Tracing is off unless asked for: [FromEnv] returns nil when no OTLP
// endpoint is set, and the nil *[Tracer] records nothing, wraps nothing
// and costs nothing. The spans of a run nest like this:
//
//	invoke_agent toolscope          INTERNAL  gen_ai.operation.name=invoke_agent
//	├── chat gpt-4o                 CLIENT    gen_ai.provider.name, gen_ai.request.model
//	├── execute_tool Bash           INTERNAL  gen_ai.tool.name, gen_ai.tool.call.id,
//	│                                         toolscope.permission.behavior/reason/rules,
//	│                                         toolscope.tool.status, error.type
//	└── chat gpt-4o
//
// [Tracer.InvokeAgent] starts the run's span around an agent's Run or
// Resume; [Tracer.Model] wraps the model, [Tracer.Middleware] the
// Toolkit's calls. Both find their parent in the context the agent passes
// down.
//
// Nothing secret goes out: the tools' inputs and results are not recorded
// unless $OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is true, and
// then they go through [RedactJSON] and [Redact] (and the result of a call
// that names a secret file, by the path policy toolscope's tools obey, is
// withheld whole); the permission reasons and error messages that are
// always recorded go through [Redact] too. Export never blocks a call: a
// bounded queue drops (and counts) spans when the collector is slow, and
// a failed export is said once on the warnings, never failing the run.
package tracing
