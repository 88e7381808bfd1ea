/**
 * The shapes of what dbtattic answers: each command's `--json`, the MCP tools' structured
 * content, and what the VS Code extension reads. Declared here once, as types only, importing
 * nothing, so the extension (its own package) imports them as they are: a field renamed here
 * fails the extension's build, not its users.
 */
export type { History, HistoryRow, NodeResult } from './history.js';
export type { ArchiveSummary, ConfigView, InfoAnswer, RemoteView, RetentionView, Sourced, StoreFigures, StoreView } from './info.js';
export type { StateAnswer } from './state.js';
