#!/usr/bin/env node
// Validates rendered Kubernetes manifests (`helm template … | node validate-manifests.mjs`) offline,
// against the API schemas that kubernetes-models generates from Kubernetes' OpenAPI documents.
// Prints "N passed, N failed" and exits 1 on any failure. Custom resources (KEDA's ScaledObject,
// the Prometheus Operator's ServiceMonitor) have no schema here: they are counted apart, never passed.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const CUSTOM_RESOURCES = new Set(['keda.sh/v1alpha1/ScaledObject', 'monitoring.coreos.com/v1/ServiceMonitor']);
const text = readFileSync(process.argv[2] ?? 0, 'utf8');
let passed = 0;
let failed = 0;
let custom = 0;
for (const doc of parseAllDocuments(text)) {
  if (doc.errors.length > 0) {
    failed++;
    console.log(`FAIL yaml: ${doc.errors[0].message}`);
    continue;
  }
  const object = doc.toJS();
  if (object === null || object === undefined) continue;
  const { apiVersion, kind } = object;
  const what = `${apiVersion}/${kind} ${object.metadata?.name ?? '(no name)'}`;
  if (CUSTOM_RESOURCES.has(`${apiVersion}/${kind}`)) {
    custom++;
    console.log(`CRD  ${what}: no schema offline, not validated`);
    continue;
  }
  try {
    const module = await import(`kubernetes-models/${apiVersion}/${kind}`);
    new module[kind](object).validate();
    passed++;
    console.log(`ok   ${what}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${what}: ${err.message.split('\n').slice(0, 6).join(' | ')}`);
  }
}
console.log(`${passed} passed, ${failed} failed${custom ? `, ${custom} custom resources not validated` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
