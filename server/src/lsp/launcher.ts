/**
 * What the extension starts: loads the language server's bundle (`serverMain.js` beside this
 * file) through V8's code cache kept in the folder given as `--code-cache=DIR` (the extension
 * gives one in its storage folder), so that a start of the editor does not parse and compile the
 * whole server again. Without the bundle beside it (the unbundled build) it runs the server module.
 */
import * as fs from 'fs';
import * as path from 'path';
import { codeCacheDir, runBundle } from '../codeCache';

const bundle = path.join(__dirname, 'serverMain.js');
if (fs.existsSync(bundle)) runBundle(bundle, codeCacheDir(process.argv));
// (a path the bundler leaves alone: the launcher's bundle must not hold the server)
else module.require(path.join(__dirname, 'server'));
