// The local hosts' environment defaults, imported first for their side effect.

/**
 * Environment defaults of the local hosts (dev server, CLI, bench). Imported first, for its
 * side effect: the logger and metrics read these when their module loads.
 */
// Lambda runs Node 22; the SDK's warning about Node 20 is noise on a laptop.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
// EMF metric lines are for CloudWatch; on a laptop they only drown the logs.
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
