/** Imported first by the bench: the local defaults, and quiet logs (the table is the output). */
import '../bin/local/preamble.js';

process.env.LOG_LEVEL ??= 'SILENT';
