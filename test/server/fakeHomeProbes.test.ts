/**
 * Issue 36 item 2, probed as a token holder would: a fake HOME with secrets planted in the usual credential places, the
 * workspace kept directly in it (`~/ws.fairground`, so the workspace's folder is HOME), browser mode started as
 * `fairground serve` starts it (app config and key folder at their defaults under that HOME), and every route that takes
 * a path — preview, browse, import (files and bundle), model add, workspace open, create and forget, folder allow and
 * confirm, an embedding model named by path (retrieval.dense.build, retrieval.runs.create), an experiment spec naming
 * one (validate, create, run) — called over HTTP. Each probe must be refused with an error saying why, and no planted
 * secret byte may come back in any answer. (The list follows the API contract's path-taking inputs: fields `path`,
 * `folders`, `files` and the embedding `model`, which is a library name or a GGUF path.)
 *
 * The layout makes the private list the only guard for part of it: `~/.config` is a symlink to `~/dotfiles/config`, and
 * `~/dotfiles` is an allowed folder (added by the code printed in the terminal), so `~/dotfiles/config/gcloud/...` is
 * inside an allowed folder and is refused only because `~/.config/gcloud` is private once resolved through the link.
 * Files there are valid of their kind (a TSV corpus, a LaMP questions file, a GGUF model, a workspace), so removing the
 * private check from any one route makes that route answer. `~/.config/gh` does not exist when the server starts; it is
 * made afterwards and must be private too.
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, type Envelope } from '../../src-main/api/contract/index';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { openWorkspace } from '../../src-main/store/workspace';
import { allowFolderByCode } from '../support/folderGesture';
import { pathFields } from '../security/contractInputs';

interface Answer {
  status: number;
  body: { ok: boolean; data?: unknown; error?: { code: string; message: string; field?: string } };
}

let home: string;
let app: BrowserMode;
/** Every answer's text, checked for planted secrets at the end too. */
const answers: string[] = [];
const ENV_KEYS = ['HOME', 'FAIRGROUND_CONFIG_DIR', 'FAIRGROUND_KEY_FILE', 'XDG_CONFIG_HOME'] as const;
const savedEnv = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));

/** Secret markers, one per planted file; none may appear in any answer. */
const S = {
  aws: 'AKIAFAKEHOMEAWS0SECRET',
  gcloud: 'gcloud-refresh-SECRET-5d1f',
  docker: 'ZG9ja2VyOlNFQ1JFVA==SECRET',
  kube: 'kube-token-SECRET-88aa',
  ssh: 'b3BlbnNzaC1rZXktSECRET-ssh',
  git: 'ghp_gitcredSECRET0000',
  netrc: 'netrc-password-SECRET',
  npm: 'npm_authTokenSECRET1234',
  pypi: 'pypi-AgEIcHlwaSECRET',
  chrome: 'chrome-cookie-SECRET-77',
  firefox: 'firefox-login-SECRET-42',
  gh: 'gho_ghhostsSECRET999',
  key: 'k3y-material-SECRET-0b5e',
};
const GGUF = 'model.gguf';
const FIX = join(process.cwd(), 'test', 'fixtures', 'collections');

/** Every method this test called. */
const called = new Set<string>();

async function api(method: string, input: unknown): Promise<Answer> {
  called.add(method);
  const res = await fetch(`${app.server.url}api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
    body: JSON.stringify(input),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, body: JSON.parse(text) as Answer['body'] };
}

function noSecret(a: Answer, what: string): void {
  const text = JSON.stringify(a.body);
  for (const [name, secret] of Object.entries(S)) expect(text, `${what}: the ${name} secret came back`).not.toContain(secret);
}

/** Refused with a 4xx and an error message matching `why`; nothing secret in the answer. */
function refused(a: Answer, what: string, why: RegExp): void {
  expect(a.body.ok, `${what} was answered: ${JSON.stringify(a.body).slice(0, 300)}`).toBe(false);
  expect(a.status, what).toBeGreaterThanOrEqual(400);
  expect(a.status, what).toBeLessThan(500);
  expect(a.body.error?.message, what).toMatch(why);
  noSecret(a, what);
}

/** What the private check says, whichever route it guards (paths.ts). */
const PRIVATE = /keys and credentials|settings or keys/;

const p = (...parts: string[]) => join(home, ...parts);
function plant(rel: string, content: string | Buffer): string {
  const path = p(rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, content);
  return path;
}

beforeAll(async () => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'fg-fake-home-')));
  // The usual credential places, each holding a marker. Several are valid files of some import kind.
  plant('.aws/credentials', `[default]\naws_access_key_id = ${S.aws}\naws_secret_access_key = x\n`);
  plant('.docker/config.json', `{"auths": {"https://index.docker.io/v1/": {"auth": "${S.docker}"}}}\n`);
  plant('.kube/config', `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${S.kube}\n`);
  plant('.ssh/id_rsa', `-----BEGIN OPENSSH PRIVATE KEY-----\n${S.ssh}\n-----END OPENSSH PRIVATE KEY-----\n`);
  plant('.git-credentials', `https://bob:${S.git}@github.com\n`);
  plant('.netrc', `machine api.example.com\tlogin bob\tpassword ${S.netrc}\n`);
  plant('.npmrc', `//registry.npmjs.org/:_authToken=${S.npm}\n`);
  plant('.pypirc', `[pypi]\nusername = __token__\npassword = ${S.pypi}\n`);
  plant('.mozilla/firefox/x.default/logins.json', `[{"id": "q1", "input": "Which tag? ${S.firefox}", "profile": [{"id": "p1", "text": "t", "tag": "x"}]}]\n`);
  // ~/.config is a symlink into ~/dotfiles (a common dotfiles setup); its contents are valid corpora.
  plant('dotfiles/config/gcloud/credentials.db', `client_id\trefresh_token\ncid-1\t${S.gcloud}\n`);
  plant('dotfiles/config/gcloud/access_tokens.qrels', `q1 0 ${S.gcloud} 1\n`);
  plant('dotfiles/config/google-chrome/Default/Cookies', `host\tvalue\nexample.com\t${S.chrome}\n`);
  plant('dotfiles/config/google-chrome/Default/logins.json', `[{"id": "q1", "input": "Which tag? ${S.chrome}", "profile": [{"id": "p1", "text": "t", "tag": "x"}]}]\n`);
  symlinkSync(p('dotfiles/config'), p('.config'));
  await writeTinyGguf(p('dotfiles/config/gcloud', GGUF), { preset: 'tiny', seed: 3 });
  openWorkspace(p('dotfiles/config/gcloud/old.fairground')).close();
  // An allowed data folder with a real corpus and links out of it to the secrets.
  plant('data/corpus.tsv', 'id\ttext\nd1\twind power\n');
  symlinkSync(p('.config/gcloud/credentials.db'), p('data/innocent.tsv'));
  symlinkSync(p('.aws/credentials'), p('data/aws.tsv'));
  symlinkSync(p('.mozilla/firefox/x.default/logins.json'), p('data/questions.json'));
  symlinkSync(p('.config/gcloud', GGUF), p('data/model.gguf'));
  symlinkSync(p('.config/gcloud/old.fairground'), p('data/old.fairground'));
  symlinkSync(home, p('data/home-link'));
  symlinkSync(p('.ssh'), p('data/ssh-link'));

  for (const k of ENV_KEYS) delete process.env[k];
  process.env.HOME = home;
  app = await startBrowserMode({ workspacePath: p('ws.fairground'), staticDir: p('no-ui') });
});

afterAll(async () => {
  await app?.close();
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
  if (home) rmSync(home, { recursive: true, force: true });
});

const call = async (m: string, i: unknown) => (await api(m, i)).body as Envelope<unknown>;

/** The job a route answered with, once it has finished (done, failed or cancelled); its answers are checked too. */
async function finished(started: Answer): Promise<{ status: string; error: string | null }> {
  expect(started.body.ok, JSON.stringify(started.body).slice(0, 300)).toBe(true);
  const id = (started.body.data as { id: string }).id;
  for (let i = 0; i < 600; i++) {
    const job = (await api('jobs.get', { id })).body.data as { status: string; error: string | null };
    if (job.status !== 'queued' && job.status !== 'running') return job;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${id} did not finish`);
}

/** Every planted secret file, by the path a request would name (HOME's own, through ~/.config, through links). */
const secretFiles = () => [
  p('.aws/credentials'),
  p('.docker/config.json'),
  p('.kube/config'),
  p('.ssh/id_rsa'),
  p('.git-credentials'),
  p('.netrc'),
  p('.npmrc'),
  p('.pypirc'),
  p('.mozilla/firefox/x.default/logins.json'),
  p('.config/gcloud/credentials.db'),
  p('.config/google-chrome/Default/Cookies'),
  p('dotfiles/config/gcloud/credentials.db'),
  p('dotfiles/config/gcloud/access_tokens.qrels'),
  p('dotfiles/config/google-chrome/Default/Cookies'),
  p('dotfiles/config/google-chrome/Default/logins.json'),
  p('data/innocent.tsv'),
  p('data/aws.tsv'),
  p('data/questions.json'),
];

/** Files inside an allowed folder (~/dotfiles) guarded by nothing but the private list. */
const privateOnly = () => [
  p('dotfiles/config/gcloud/credentials.db'),
  p('dotfiles/config/gcloud/access_tokens.qrels'),
  p('dotfiles/config/google-chrome/Default/Cookies'),
  p('dotfiles/config/google-chrome/Default/logins.json'),
  p('data/innocent.tsv'),
  p('data/questions.json'),
];

const KINDS = ['corpus', 'queries', 'qrels', 'lamp', 'msmarco', 'fairrag-mapping'] as const;

describe('a workspace kept in a fake HOME with planted secrets', () => {
  it('does not allow HOME: no folder is allowed until the user adds one, and browsing says so', async () => {
    const folders = await api('files.allowedFolders', {});
    expect(folders.body).toMatchObject({ ok: true, data: { folders: [], userFolders: [] } });
    refused(await api('files.browse', {}), 'browse with no folder', /no folder is allowed.*home folder.*Settings → Add folder/);
    refused(await api('files.browse', { path: home }), 'browse HOME', /outside the allowed folders/);
    // The workspace's own file is allowed (it is not a data file, so the preview refuses it for what it is).
    const own = await api('collections.previewFile', { kind: 'corpus', path: p('ws.fairground') });
    expect(own.body.error?.message).not.toMatch(/outside the folders/);
  });

  it('refuses HOME, a link to it and every private place as an allowed folder', async () => {
    for (const folder of [home, p('data/home-link')]) {
      refused(await api('files.requestFolder', { path: folder }), `allow ${folder}`, /home folder.*cannot be allowed as a whole/);
      refused(await api('files.setAllowedFolders', { folders: [folder] }), `set ${folder}`, /home folder|not confirmed/);
    }
    for (const folder of [p('.ssh'), p('.aws'), p('.kube'), p('.docker'), p('.mozilla/firefox'), p('.config/gcloud'), p('dotfiles/config/gcloud'), p('dotfiles/config/google-chrome/Default'), p('data/ssh-link'), p('.config/fairground')]) {
      mkdirSync(folder, { recursive: true });
      refused(await api('files.requestFolder', { path: folder }), `allow ${folder}`, PRIVATE);
    }
    // The user allows their data folder and their dotfiles (the code printed in the terminal).
    expect(await allowFolderByCode(call, p('data'))).toMatchObject({ ok: true });
    expect(await allowFolderByCode(call, p('dotfiles'))).toMatchObject({ ok: true });
    const folders = await api('files.allowedFolders', {});
    expect((folders.body.data as { folders: string[] }).folders).toEqual([p('data'), p('dotfiles')]);
  });

  it('previews a data file, and no secret file as any kind', async () => {
    const ok = await api('collections.previewFile', { kind: 'corpus', path: p('data/corpus.tsv') });
    expect(ok.body).toMatchObject({ ok: true, data: { rows: [{ id: 'd1', text: 'wind power' }] } });
    for (const path of secretFiles()) {
      for (const kind of KINDS) {
        const a = await api('collections.previewFile', { kind, path });
        refused(a, `preview ${path} as ${kind}`, /keys and credentials|outside the folders/);
      }
    }
    for (const path of privateOnly()) refused(await api('collections.previewFile', { kind: 'corpus', path }), `preview ${path}`, PRIVATE);
  });

  it('imports no secret file, alone or in a bundle', async () => {
    for (const path of secretFiles()) {
      refused(await api('collections.import', { collectionName: 'stolen', kind: 'corpus', files: [path] }), `import ${path}`, /keys and credentials|outside the folders/);
      refused(await api('collections.importBundle', { collectionName: 'stolen', corpus: { path } }), `bundle ${path}`, /keys and credentials|outside the folders/);
    }
    for (const path of privateOnly()) {
      refused(await api('collections.import', { collectionName: 'stolen', kind: 'lamp', files: [path] }), `import ${path}`, PRIVATE);
      refused(await api('collections.importBundle', { collectionName: 'stolen', corpus: { path: p('data/corpus.tsv') }, qrels: { path } }), `bundle qrels ${path}`, PRIVATE);
    }
    expect((await api('collections.list', {})).body).toMatchObject({ ok: true, data: [] });
  });

  it('adds no model from a private place (a real GGUF there, directly or through a link)', async () => {
    for (const path of [p('.config/gcloud', GGUF), p('dotfiles/config/gcloud', GGUF), p('data/model.gguf')]) {
      refused(await api('models.add', { path, name: 'stolen' }), `models.add ${path}`, PRIVATE);
    }
    for (const path of [p('.kube/config'), p('.ssh/id_rsa')]) refused(await api('models.add', { path }), `models.add ${path}`, /keys and credentials|outside the folders/);
    const models = (await api('models.list', {})).body.data as { name: string }[];
    expect(models.map((m) => m.name)).not.toContain('stolen');
  });

  it('opens no workspace from a private place (a real one there, directly or through a link)', async () => {
    for (const path of [p('.config/gcloud/old.fairground'), p('dotfiles/config/gcloud/old.fairground'), p('data/old.fairground')]) {
      refused(await api('workspaces.open', { path }), `open ${path}`, PRIVATE);
    }
    for (const path of [p('.ssh/id_rsa'), p('.netrc')]) refused(await api('workspaces.open', { path }), `open ${path}`, /keys and credentials|outside the folders/);
    expect((await api('workspaces.current', {})).body).toMatchObject({ ok: true, data: { path: p('ws.fairground') } });
  });

  it('creates no workspace in HOME or a private place, made yet or not', async () => {
    refused(await api('workspaces.create', { path: p('ws2.fairground') }), 'create in HOME', /outside the folders this app may write/);
    for (const path of [p('.ssh/x.fairground'), p('.aws/x.fairground'), p('.config/gcloud/x.fairground'), p('dotfiles/config/gcloud/x.fairground'), p('dotfiles/config/google-chrome/x.fairground'), p('dotfiles/config/fairground/x.fairground')]) {
      refused(await api('workspaces.create', { path }), `create ${path}`, PRIVATE);
    }
    // A private folder that does not exist yet: no such folder, and nothing made.
    refused(await api('workspaces.create', { path: p('.config/gh/x.fairground') }), 'create under ~/.config/gh', /no such folder/);
    expect((await api('workspaces.current', {})).body).toMatchObject({ ok: true, data: { path: p('ws.fairground') } });
  });

  it('browses allowed folders without listing private places or links to them', async () => {
    const data = await api('files.browse', { path: p('data') });
    expect(data.body.ok).toBe(true);
    const names = (data.body.data as { entries: { name: string }[] }).entries.map((e) => e.name);
    expect(names).toEqual(['corpus.tsv']);
    // ~/.config (a link to ~/dotfiles/config, inside an allowed folder) lists none of gcloud, google-chrome, fairground.
    for (const path of [p('dotfiles/config'), p('.config')]) {
      const config = await api('files.browse', { path });
      expect(config.body.ok).toBe(true);
      expect((config.body.data as { entries: unknown[] }).entries).toEqual([]);
    }
    for (const path of [p('.ssh'), p('.aws'), p('.config/gcloud'), p('dotfiles/config/gcloud'), p('dotfiles/config/google-chrome/Default'), p('data/ssh-link'), p('dotfiles/config/fairground')]) {
      refused(await api('files.browse', { path }), `browse ${path}`, /keys and credentials|outside the allowed folders/);
    }
    for (const path of [p('dotfiles/config/gcloud'), p('dotfiles/config/google-chrome/Default'), p('.config/gcloud')]) {
      refused(await api('files.browse', { path }), `browse ${path}`, PRIVATE);
    }
  });

  it('keeps a private place made after the server started private (resolved through the ~/.config link)', async () => {
    const made = plant('dotfiles/config/gh/hosts.tsv', `host\ttoken\ngithub.com\t${S.gh}\n`);
    for (const kind of KINDS) refused(await api('collections.previewFile', { kind, path: made }), `preview ${made} as ${kind}`, PRIVATE);
    refused(await api('collections.import', { collectionName: 'stolen', kind: 'corpus', files: [made] }), 'import gh', PRIVATE);
    refused(await api('files.browse', { path: p('dotfiles/config/gh') }), 'browse gh', PRIVATE);
    refused(await api('workspaces.create', { path: p('.config/gh/x.fairground') }), 'create in gh', PRIVATE);
    // The key that seals stored API keys, in the app's config folder reached through the ~/.config link (the issue's
    // `models.add` echoed its first 4 characters): refused by every route that reads a file.
    const key = plant('dotfiles/config/fairground/secret.key', `id\ttext\n${S.key}\tx\n`);
    for (const kind of KINDS) refused(await api('collections.previewFile', { kind, path: key }), `preview key as ${kind}`, PRIVATE);
    refused(await api('models.add', { path: key }), 'models.add key', PRIVATE);
    refused(await api('workspaces.open', { path: key }), 'open key', PRIVATE);
    refused(await api('collections.import', { collectionName: 'stolen', kind: 'corpus', files: [key] }), 'import key', PRIVATE);
    // A path not made yet under a private folder: refused as well, naming no content.
    refused(await api('collections.previewFile', { kind: 'corpus', path: p('.aws/not-yet.tsv') }), 'preview not-yet', /no such file/);
  });

  it('opens no embedding model by a path to a private place (dense build, dense run), and no experiment spec reads one', async () => {
    // A lab folder the user allows, with a LaMP collection and a library model, so that every request below is valid
    // except for the model path it names.
    mkdirSync(p('lab'));
    writeFileSync(p('lab/questions.json'), readFileSync(join(FIX, 'lamp2_questions.json')));
    writeFileSync(p('lab/outputs.json'), readFileSync(join(FIX, 'lamp2_outputs.json')));
    await writeTinyGguf(p('lab/tiny.gguf'), { preset: 'tiny', seed: 4 });
    expect(await allowFolderByCode(call, p('lab'))).toMatchObject({ ok: true });
    expect((await api('models.add', { path: p('lab/tiny.gguf'), name: 'tiny' })).body).toMatchObject({ ok: true });
    const imported = await api('collections.import', { collectionName: 'lamp', kind: 'lamp', files: [p('lab/questions.json'), p('lab/outputs.json')] });
    expect(await finished(imported)).toMatchObject({ status: 'succeeded' });
    const collectionId = ((await api('collections.list', {})).body.data as { id: number; name: string }[]).find((c) => c.name === 'lamp')!.id;

    // Paths an embedding model may not be opened from: a key, a real GGUF in a private folder (directly, through the
    // ~/.config link, through a link in an allowed folder), the sealing key. Each is refused before anything reads it.
    const models = [p('.ssh/id_rsa'), p('data/ssh-link/id_rsa'), p('.config/gcloud', GGUF), p('dotfiles/config/gcloud', GGUF), p('data/model.gguf'), p('.config/fairground/secret.key')];
    for (const model of models) {
      for (const [method, input] of [
        ['retrieval.dense.build', { collectionId, model }],
        ['retrieval.runs.create', { collectionId, method: 'dense', model }],
      ] as const) {
        const started = await api(method, input);
        noSecret(started, `${method} ${model}`);
        // The route answers with a job (the engine opens in it); the job fails with the path check's reason.
        const job = started.body.ok ? await finished(started) : started.body.error;
        expect(job, `${method} ${model}`).toMatchObject({ ...(started.body.ok ? { status: 'failed' } : {}) });
        const message = started.body.ok ? (job as { error: string }).error : (job as { message: string }).message;
        expect(message, `${method} ${model}`).toMatch(/keys and credentials|settings or keys|outside the folders/);
      }
    }
    expect((await api('retrieval.dense.sets', { collectionId })).body).toMatchObject({ ok: true, data: [] });
    expect((await api('retrieval.runs.list', { collectionId })).body).toMatchObject({ ok: true, data: [] });

    // An experiment names an embedding model by library name only: a path (a key, a GGUF in a private place) is refused
    // by validation, creation or the run, and the run opens no file.
    const spec = (model: string) => ({
      kind: 'fair-rag',
      name: `probe-${models.indexOf(model)}`,
      collection: 'lamp',
      retrievers: [{ name: 'dense', method: 'dense', params: { model } }],
      generator: { model: 'tiny' },
      decoding: { maxTokens: 4 },
      k: 1,
      samples: 1,
      alphas: [0],
    });
    for (const model of models) {
      const v = await api('experiments.validateSpec', { spec: spec(model) });
      noSecret(v, `validate ${model}`);
      const issues = (v.body.data as { issues: { path: string; message: string }[] }).issues;
      // Every path is refused by validation (no library model has that name; a .gguf path gets the way to add it).
      const hint = /\.gguf$/.test(model) ? ': a spec names a model by its library name; add the file in Models (Add model) and use its name' : '';
      expect(issues, `validate ${model}`).toEqual([{ path: 'retrievers[0].params.model', message: `no model named '${model}' in the library${hint}` }]);
      // Saved as a draft, then run: refused (before or in the job) as no library model, and no file is opened.
      const created = await api('experiments.create', { spec: spec(model) });
      expect(created.body, `create ${model}`).toMatchObject({ ok: true });
      const run = await api('experiments.run', { id: (created.body.data as { id: number }).id });
      noSecret(run, `run ${model}`);
      const message = run.body.ok ? ((await finished(run)) as { error: string }).error : run.body.error!.message;
      expect(message, `run ${model}`).toContain(`no model named '${model}' in the library`);
    }
  });

  it('confirms no private folder with any code, and forgetting a private path from the recent list reads nothing', async () => {
    for (const folder of [home, p('.ssh'), p('.aws'), p('.config/gcloud'), p('dotfiles/config/gcloud'), p('data/ssh-link'), p('.config/fairground')]) {
      refused(await api('files.confirmFolder', { path: folder, code: '000000' }), `confirm ${folder}`, folder === home ? /home folder.*cannot be allowed as a whole/ : PRIVATE);
    }
    expect((await api('files.allowedFolders', {})).body).toMatchObject({ ok: true, data: { folders: [p('data'), p('dotfiles'), p('lab')] } });
    for (const path of [p('.ssh/id_rsa'), p('.config/fairground/secret.key'), p('data/model.gguf')]) {
      const forgot = await api('workspaces.forget', { path });
      expect(forgot.body, `forget ${path}`).toMatchObject({ ok: true });
      noSecret(forgot, `forget ${path}`);
      expect(JSON.stringify(forgot.body.data)).not.toContain(path);
    }
  });

  it('probed every path-taking input of the API contract (a new one fails here until it is probed or exempted)', () => {
    // The contract's path-like input fields, found as test/security/apiPaths.test.ts finds them (by key name).
    const fields = Object.entries(contract).flatMap(([m, def]) => pathFields(def.input).map((f) => `${m} ${f}`));
    const probed = [
      'files.setAllowedFolders folders[]',
      'files.requestFolder path',
      'files.confirmFolder path',
      'files.browse path',
      'collections.import files[]',
      'collections.importBundle corpus.path', // queries and qrels share its schema; qrels.path is probed too
      'collections.previewFile path',
      'workspaces.forget path',
      'workspaces.open path',
      'workspaces.create path',
      'models.add path',
      'retrieval.runs.create model',
      'retrieval.dense.build model',
    ];
    const exempt: Record<string, string> = {
      'remotes.add model': 'the model name an OpenAI-compatible server serves, sent to that server; no file is opened',
    };
    expect([...fields].sort()).toEqual([...probed, ...Object.keys(exempt)].sort());
    for (const f of probed) expect(called, f).toContain(f.split(' ')[0]);
    // Experiment specs are untyped at the contract level (each kind checks its own): their one path-like input, a
    // dense retriever's model, is probed above through experiments.validateSpec, create and run.
    for (const m of ['experiments.validateSpec', 'experiments.create', 'experiments.run']) expect(called, m).toContain(m);
  });

  it('let no planted secret out in any answer', () => {
    expect(answers.length).toBeGreaterThan(200);
    const all = answers.join('\n');
    for (const [name, secret] of Object.entries(S)) expect(all, name).not.toContain(secret);
  });
});
