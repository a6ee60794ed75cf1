/** apidrift's own protocol messages between the client and the server. */

export type ServerState = 'idle' | 'indexing' | 'ready' | 'error';

export interface StatusParams {
  state: ServerState;
  /** Targets in use (resolved paths). */
  targets: string[];
  /** A one-line reason for `error`, or a short summary otherwise. */
  message: string;
  /** The server's process id. */
  pid: number;
  /** Where the target comes from: the `apidrift.targets` setting, a pyproject.toml, or what was detected. */
  origin?: string;
  /** The environment the target belongs to (".venv"), when it is one. */
  environment?: string;
  /** The versions of the target's libraries that the open files import (from their `*.dist-info`), or that a requirement names. */
  libraries?: Array<{ name: string; version: string }>;
}

export const StatusNotification = 'apidrift/status';
export const RecheckRequest = 'apidrift/recheck';

export interface InsertSnippetArgs {
  uri: string;
  version: number;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  snippet: string;
}

export const INSERT_SNIPPET_COMMAND = 'apidrift.insertSnippet';

/** The API-change report between the baseline and the target, as text in the `apidrift-report` language. */
export const ChangesRequest = 'apidrift/changes';
export interface ChangesResult {
  text?: string;
  error?: string;
  /** Spans of `text` that link to a place (a file's 1-based line) or, without a file, to a line of the report. */
  links?: Array<{ line: number; character: number; length: number; file?: string; targetLine: number }>;
  /** The changes the workspace uses, most used first. */
  used?: Array<{ name: string; uses: number }>;
}

export const FIX_ALL_KIND = 'source.fixAll.apidrift';

/** Client → server: the workspace's Python environment as the Python extension reports it, and workspace trust. */
export const EnvironmentNotification = 'apidrift/environment';
export interface EnvironmentParams {
  /** The environment the Python extension has selected for the first workspace folder. */
  interpreter?: string;
  /** The same for each other workspace folder (its path → the environment), where one is selected. */
  folders?: Record<string, string>;
  trusted: boolean;
}

/**
 * Client → server, for `apidrift.checkUpgrade`: without a project, the distributions installed in
 * the workspace's environment; with one, the versions the package index lists, newest first.
 */
export const VersionsRequest = 'apidrift/versions';
export interface VersionsParams {
  project?: string;
}
export interface VersionsResult {
  installed?: Array<{ name: string; version: string }>;
  versions?: string[];
  error?: string;
}

/**
 * Server → client, when the client asked for it (initialization option `fetchProgress`): the
 * progress of fetching targets named by version, for a notification with a cancel button
 * (instead of work-done progress, which VS Code shows in the status bar without one).
 */
export const FetchProgressNotification = 'apidrift/fetchProgress';
export interface FetchProgressParams {
  id: number;
  /** 'end' closes the notification. */
  kind: 'begin' | 'report' | 'end';
  message?: string;
  /** 0-100 when the size is known. */
  percentage?: number;
}
/** Client → server: the user cancelled the fetch `id`. */
export const CancelFetchNotification = 'apidrift/cancelFetch';

/** Server → client: the environments found for `apidrift.selectTarget`. */
export const DetectRequest = 'apidrift/detectTargets';

/** Client → server (`apidrift.checkWorkspace`): checks every Python file of the workspace now; answers with counts or an error. */
export const CheckWorkspaceRequest = 'apidrift/checkWorkspace';
