/** The adapter over the Python extension's environments API, with a fake API object. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activeEnvironment, environmentLocation, type EnvironmentsApi, folderEnvironments, onActiveEnvironmentChange } from '../../client/src/pythonEnv';

type Listener = Parameters<EnvironmentsApi['onDidChangeActiveEnvironmentPath']>[0];

/** A fake of the API: an active environment per resource and what resolving each path gives. */
function fakeApi(active: Record<string, string>, resolved: Record<string, Awaited<ReturnType<EnvironmentsApi['resolveEnvironment']>> | Error>) {
  const asked: Array<string | undefined> = [];
  const listeners: Listener[] = [];
  const api: EnvironmentsApi = {
    getActiveEnvironmentPath: (resource) => {
      const key = resource ? String((resource as { toString(): string }).toString()) : '';
      asked.push(key || undefined);
      const path = active[key] ?? active[''];
      return { id: path, path };
    },
    resolveEnvironment: async (env) => {
      const r = resolved[typeof env === 'string' ? env : env.path];
      if (r instanceof Error) throw r;
      return r;
    },
    onDidChangeActiveEnvironmentPath: (l) => {
      listeners.push(l);
      return { dispose: () => listeners.splice(listeners.indexOf(l), 1) };
    },
  };
  return { api, asked, fire: (e: Parameters<Listener>[0]) => listeners.forEach((l) => l(e)), listeners };
}

const folderA = { toString: () => 'file:///ws/a' };
const folderB = { toString: () => 'file:///ws/b' };

describe('the Python extension adapter', () => {
  it("asks for the resource's environment and gives its resolved sys.prefix", async () => {
    const f = fakeApi(
      { 'file:///ws/a': '/ws/a/.venv/bin/python', '': '/usr/bin/python3' },
      { '/ws/a/.venv/bin/python': { executable: { uri: { fsPath: '/ws/a/.venv/bin/python3.12' }, sysPrefix: '/ws/a/.venv' }, environment: { folderUri: { fsPath: '/ws/a/.venv' } } } },
    );
    const env = await activeEnvironment(f.api, folderA as never);
    assert.deepEqual(f.asked, ['file:///ws/a']);
    assert.deepEqual(env, { prefix: '/ws/a/.venv', interpreter: '/ws/a/.venv/bin/python3.12' });
    assert.equal(environmentLocation(env), '/ws/a/.venv');
  });

  it('falls back to the environment folder, then to the interpreter path', async () => {
    const f = fakeApi(
      { '': '/envs/x/bin/python' },
      { '/envs/x/bin/python': { executable: { uri: undefined, sysPrefix: '' }, environment: { folderUri: { fsPath: '/envs/x' } } } },
    );
    assert.deepEqual(await activeEnvironment(f.api), { prefix: '/envs/x', interpreter: '/envs/x/bin/python' });
    const g = fakeApi({ '': '/opt/py/bin/python' }, { '/opt/py/bin/python': new Error('cannot resolve') });
    const env = await activeEnvironment(g.api);
    assert.deepEqual(env, { prefix: undefined, interpreter: '/opt/py/bin/python' });
    assert.equal(environmentLocation(env), '/opt/py/bin/python');
  });

  it('gives nothing when the API has no active environment or throws', async () => {
    const f = fakeApi({ '': '' }, {});
    assert.deepEqual(await activeEnvironment(f.api), {});
    const broken: EnvironmentsApi = { ...f.api, getActiveEnvironmentPath: () => { throw new Error('not ready'); } };
    assert.deepEqual(await activeEnvironment(broken), {});
  });

  it("follows changes of this folder's environment only", () => {
    const f = fakeApi({ '': '/x' }, {});
    let calls = 0;
    const sub = onActiveEnvironmentChange(f.api, folderA, () => calls++);
    f.fire({ path: '/y', resource: { uri: folderA } as never });
    f.fire({ path: '/y', resource: { uri: folderB } as never });
    f.fire({ path: '/y', resource: undefined }); // the global choice
    assert.equal(calls, 2);
    sub.dispose();
    assert.equal(f.listeners.length, 0);
  });

  it('gives each other folder the environment selected for it, resolved, and leaves out a folder without one', async () => {
    const f = fakeApi(
      { 'file:///ws/a': '/envs/a/bin/python', 'file:///ws/b': '/envs/b/bin/python', '': '' },
      {
        '/envs/a/bin/python': { executable: { uri: { fsPath: '/envs/a/bin/python' }, sysPrefix: '/envs/a' } },
        '/envs/b/bin/python': { executable: { uri: { fsPath: '/envs/b/bin/python' }, sysPrefix: '/envs/b' } },
      },
    );
    const folderC = { toString: () => 'file:///ws/c' };
    const got = await folderEnvironments(f.api, [
      { uri: folderA as never, fsPath: '/ws/a' },
      { uri: folderB as never, fsPath: '/ws/b' },
      { uri: folderC as never, fsPath: '/ws/c' },
    ]);
    assert.deepEqual(got, { '/ws/a': '/envs/a', '/ws/b': '/envs/b' });
    assert.deepEqual(f.asked, ['file:///ws/a', 'file:///ws/b', 'file:///ws/c']);
  });
});
