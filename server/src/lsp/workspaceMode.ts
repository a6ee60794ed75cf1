/**
 * Workspace diagnostics (`apidrift.diagnosticMode: workspace`, and the "Check workspace"
 * command): every Python file of the workspace folders that is not open in the editor is checked
 * from disk and its findings are published, so that the Problems panel lists them all. Results are
 * kept per file (size, mtime, and the generation of the targets they were checked against): a run
 * re-checks only what changed. Runs yield to the event loop between files so that typing in an
 * open file is never kept waiting, and a newer run cancels an older one.
 */
import * as fs from 'fs';
import { pathToFileURL } from 'url';
import type { Diagnostic } from 'vscode-languageserver/node';

export interface WorkspaceHost {
  /** The Python files of the workspace folders (excludes applied). */
  files(): string[];
  /** The diagnostics of a file's text, or undefined when it cannot be checked now (no target). */
  check(file: string, text: string): Diagnostic[] | undefined;
  publish(uri: string, diagnostics: Diagnostic[]): void;
  isOpen(uri: string): boolean;
  /** The user is typing (an open document was edited a moment ago, or its check is pending): the run waits. */
  busy(): boolean;
  progress(): Promise<{ report(percentage: number, message: string): void; done(): void } | undefined>;
  log(message: string): void;
}

interface Kept {
  size: number;
  mtimeMs: number;
  generation: number;
  findings: number;
}

export interface RunSummary {
  files: number;
  checked: number;
  findings: number;
  filesWithFindings: number;
  cancelled: boolean;
}

export class WorkspaceChecker {
  /** Bumped whenever what the checks are made against changes (targets, their index, settings). */
  private generation = 0;
  private readonly kept = new Map<string, Kept>();
  private run_: { cancelled: boolean } | undefined;

  constructor(private readonly host: WorkspaceHost) {}

  /** The targets (or their index) changed: every file is checked again at the next run. */
  invalidate(): void {
    this.generation++;
  }

  /** Forgets one file (it changed on disk, or its editor closed), so that the next run checks it. */
  forgetFile(file: string): void {
    this.kept.delete(file);
  }

  /** The file was deleted: its problems go. */
  deleted(file: string): void {
    if (this.kept.delete(file)) this.host.publish(pathToFileURL(file).href, []);
  }

  /** Takes back every published problem of files not open (leaving workspace mode). */
  clear(): void {
    this.cancel();
    for (const file of this.kept.keys()) {
      const uri = pathToFileURL(file).href;
      if (!this.host.isOpen(uri)) this.host.publish(uri, []);
    }
    this.kept.clear();
  }

  cancel(): void {
    if (this.run_) this.run_.cancelled = true;
    this.run_ = undefined;
  }

  /** Checks one file from disk when it is not open and changed since it was last checked. */
  private checkFile(file: string, force: boolean): { findings: number } | 'skip' | 'unchecked' {
    const uri = pathToFileURL(file).href;
    if (this.host.isOpen(uri)) return 'skip';
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      this.deleted(file);
      return 'skip';
    }
    const k = this.kept.get(file);
    if (!force && k && k.size === st.size && k.mtimeMs === st.mtimeMs && k.generation === this.generation) return { findings: k.findings };
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      this.host.log(`cannot read ${file}: ${(e as Error).message}`);
      return 'skip';
    }
    const diagnostics = this.host.check(file, text);
    if (!diagnostics) return 'unchecked';
    this.kept.set(file, { size: st.size, mtimeMs: st.mtimeMs, generation: this.generation, findings: diagnostics.length });
    this.host.publish(uri, diagnostics);
    return { findings: diagnostics.length };
  }

  /**
   * Checks every Python file of the workspace that is not open (only those that changed, unless
   * `force`), with progress; resolves when done or cancelled by a newer run.
   */
  async run(force = false): Promise<RunSummary> {
    this.cancel();
    const token = { cancelled: false };
    this.run_ = token;
    const started = performance.now();
    const files = this.host.files();
    // files checked earlier that are no longer part of the workspace (deleted, now excluded)
    const listed = new Set(files);
    for (const f of [...this.kept.keys()]) if (!listed.has(f)) this.deleted(f);
    const summary: RunSummary = { files: files.length, checked: 0, findings: 0, filesWithFindings: 0, cancelled: false };
    const progress = files.length > 20 ? await this.host.progress() : undefined;
    try {
      let lastReport = 0;
      for (let i = 0; i < files.length; i++) {
        // between files: edits and requests of open documents go first, and while the user types
        // the run waits (one file's check can take long enough to be felt on a keystroke)
        await new Promise((r) => setImmediate(r));
        while (this.host.busy() && !token.cancelled) await new Promise((r) => setTimeout(r, 100));
        if (token.cancelled) {
          summary.cancelled = true;
          return summary;
        }
        const before = this.kept.get(files[i]);
        const r = this.checkFile(files[i], force);
        if (r === 'unchecked') break; // no target: nothing can be checked now
        if (r === 'skip') continue;
        if (this.kept.get(files[i]) !== before) summary.checked++;
        summary.findings += r.findings;
        if (r.findings > 0) summary.filesWithFindings++;
        if (progress && performance.now() - lastReport > 200) {
          lastReport = performance.now();
          progress.report(Math.floor((100 * i) / files.length), `${i}/${files.length} files`);
        }
      }
    } finally {
      progress?.done();
      if (this.run_ === token) this.run_ = undefined;
    }
    if (summary.checked > 0) this.host.log(`workspace: ${summary.checked} of ${summary.files} files checked, ${summary.findings} findings in ${summary.filesWithFindings} files, ${Math.round(performance.now() - started)} ms`);
    return summary;
  }
}
