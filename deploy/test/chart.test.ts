import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { IMAGE, answers200, missingPodman, must, podman, run, waitFor } from './podman.ts';

const DEPLOY = new URL('..', import.meta.url).pathname;
const CHART = join(DEPLOY, 'helm/vidgen');
const VALIDATE = join(DEPLOY, 'ci/validate-manifests.mjs');

// The Helm chart, as far as this machine allows: lint, render and schema-validate every manifest
// offline, and run the rendered API Deployment under `podman kube play`. No Kubernetes cluster here.
describe('the Helm chart (deploy/helm/vidgen)', () => {
  let helm: string;
  let dir: string;
  before(async () => {
    helm = (await must('bash', [join(DEPLOY, 'ci/helm-tool.sh')])).trim();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-chart-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const variants: Array<[string, string[]]> = [
    ['default values', []],
    ['in-cluster PostgreSQL and MinIO', ['-f', join(CHART, 'values-in-cluster.yaml')]],
    [
      'every option on',
      [
        '-f',
        join(CHART, 'values-in-cluster.yaml'),
        '--set',
        'serviceMonitor.enabled=true,worker.keda.enabled=true,api.autoscaling.enabled=true',
      ],
    ],
  ];
  for (const [name, args] of variants) {
    it(`lints, renders and validates with ${name}`, async (t) => {
      await must(helm, ['lint', '--strict', CHART, ...args]);
      const rendered = join(dir, 'rendered.yaml');
      await writeFile(rendered, await must(helm, ['template', 'vidgen', CHART, ...args]));
      const res = await run(process.execPath, [VALIDATE, rendered]);
      t.diagnostic(res.stdout.trim().split('\n').at(-1)!);
      assert.equal(res.code, 0, res.stdout);
      assert.match(res.stdout, / 0 failed/);
    });
  }

  it('refuses a chart-written secret without a signing secret', async () => {
    const res = await run(helm, ['template', 'vidgen', CHART, '--set', 'secrets.create=true']);
    assert.notEqual(res.code, 0);
    assert.match(res.stderr, /VIDGEN_SIGNING_SECRET is required/);
  });

  it('the rendered API Deployment runs under podman kube play and answers /healthz', {
    timeout: 300_000,
  }, async (t) => {
    const skip = await missingPodman();
    if (skip) return t.skip(skip);
    const [repository, tag] = [IMAGE.slice(0, IMAGE.lastIndexOf(':')), IMAGE.slice(IMAGE.lastIndexOf(':') + 1)];
    const rendered = await must(helm, [
      'template',
      'kubeplay',
      CHART,
      '-s',
      'templates/deployment-api.yaml',
      '--set',
      `image.repository=${repository},image.tag=${tag},image.pullPolicy=Never,api.replicas=1`,
      '--set',
      'config.VIDGEN_S3_BUCKET=',
    ]);
    // kube play reads no Secret from a cluster: the one credential this pod needs is given inline, and
    // SQLite and the local disk of its data volume stand in for PostgreSQL and S3.
    const docs = parseAllDocuments(rendered).map((d) => d.toJS());
    const container = docs[0].spec.template.spec.containers[0];
    container.envFrom = undefined;
    container.env.push({ name: 'VIDGEN_SIGNING_SECRET', value: 'kube-play-secret' });
    const file = join(dir, 'api.yaml');
    await writeFile(file, JSON.stringify(docs[0]));
    try {
      await podman('kube', 'play', file);
      const pod = (await podman('pod', 'ps', '--filter', 'name=kubeplay-vidgen-api', '--format', '{{.Name}}')).trim();
      const names = (await podman('ps', '--filter', `pod=${pod}`, '--format', '{{.Names}}')).trim().split('\n');
      const name = names.find((n) => n.endsWith('-vidgen'))!;
      assert.ok(name, `the vidgen container of ${pod}: ${names.join(', ')}`);
      // The pod's address on podman's bridge, which a rootful host reaches directly.
      const infra = (await podman('pod', 'inspect', pod, '--format', '{{.InfraContainerID}}')).trim();
      const ip = (
        await podman('inspect', infra, '--format', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}')
      ).trim();
      assert.match(ip, /^\d+\.\d+\.\d+\.\d+$/);
      await waitFor('/healthz of the kube play pod', 120_000, answers200(`http://${ip}:8080/healthz`));
      const user = (await podman('exec', name, 'id', '-u')).trim();
      assert.equal(user, '1000');
    } finally {
      await run('podman', ['kube', 'down', file]);
    }
  });
});
