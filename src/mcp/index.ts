/**
 * The MCP front end: the history as typed, read-only tools for agents (Model Context Protocol
 * over stdio). A tool is a question the CLI answers too, put to the same typed core (the application core, src/app/),
 * so an agent and a person get the same answer and the same errors.
 *
 * Terms: a *tool* maps its typed input to questions of the application core, each answer under a key; a *resource*
 * describes a table or view of the store, its columns and the description the schema gives it,
 * both read from the store.
 */
export { serveMcp, type McpOptions } from './serve.js';
