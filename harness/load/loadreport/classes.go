package loadreport

// Every call has exactly one outcome class (the runner's Classify names it):
// package outcome's OK, Transport, Timeout and ToolError, or an
// http_<status> or jsonrpc_<code> class the runner builds; load.json's error
// classes are the classes other than outcome.OK.
