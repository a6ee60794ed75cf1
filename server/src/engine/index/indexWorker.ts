/**
 * A worker thread that summarises target modules for the full index (one parser per thread).
 * It answers with each module's index entries, and with the summary only in the forms the main
 * thread asked for: serialised for the cache, as an object for a program that keeps summaries.
 */
import { parentPort, workerData } from 'worker_threads';
import { serializeSummary } from './cache';
import { type ModuleIndex, moduleIndexOf } from './indexEntries';
import { initParser } from '../parser';
import { type ModuleSummary, summarizeModule } from './summary';

export interface IndexJob {
  name: string;
  isPackage: boolean;
  file: string;
  text: string;
}

export interface IndexRequest {
  jobs: IndexJob[];
  /** Send back the summary serialised as the cache stores it. */
  serialized: boolean;
  /** Send back the summary itself. */
  summary: boolean;
}

/** One job's answer; `index` is null when the module could not be summarised. */
export interface IndexResult {
  index: ModuleIndex | null;
  serialized?: string;
  summary?: ModuleSummary;
}

if (parentPort) {
  const port = parentPort;
  const ready = initParser((workerData as { wasmDir?: string } | undefined)?.wasmDir);
  port.on('message', async (req: IndexRequest) => {
    await ready;
    const out = req.jobs.map((j): IndexResult => {
      try {
        const s = summarizeModule(j.text, j.name, j.isPackage, j.file);
        return { index: moduleIndexOf(s), serialized: req.serialized ? serializeSummary(s) : undefined, summary: req.summary ? s : undefined };
      } catch {
        return { index: null };
      }
    });
    port.postMessage(out);
  });
}
