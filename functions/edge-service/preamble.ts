// The edge process's environment defaults, imported first for their side effect.

/**
 * Environment defaults of the edge's process, imported first for its side effect: the logger and
 * metrics read these when their modules load.
 */
// The edge runs the Node that Debian ships; the SDK's warning about its version is noise there.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// EMF metric lines are for CloudWatch; an edge has none.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
