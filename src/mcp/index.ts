/**
 * The MCP front end: the history as typed, read-only tools for agents (Model Context Protocol
 * over stdio). A tool is a question the CLI already answers: it is put to the CLI's own program
 * in-process with `--json`, so an agent and a person get the same answer and the same errors.
 *
 * Terms: a *tool* maps its typed input to one CLI command line; a *resource* describes a table
 * or view of the store, its columns (read from the store) and README's sentence about it.
 */
export { serveMcp, type McpOptions } from './serve.js';
