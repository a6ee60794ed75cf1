/** A worker thread that summarises target modules for the full index (one parser per thread). */
import { parentPort, workerData } from 'worker_threads';
import { initParser } from './parser';
import { summarizeModule } from './summary';

export interface IndexJob {
  name: string;
  isPackage: boolean;
  file: string;
  text: string;
}

if (parentPort) {
  const port = parentPort;
  const ready = initParser((workerData as { wasmDir?: string } | undefined)?.wasmDir);
  port.on('message', async (jobs: IndexJob[]) => {
    await ready;
    const out = jobs.map((j) => {
      try {
        return summarizeModule(j.text, j.name, j.isPackage, j.file);
      } catch {
        return null;
      }
    });
    port.postMessage(out);
  });
}
