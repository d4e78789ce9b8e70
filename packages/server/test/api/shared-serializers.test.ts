import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { Type } from '@vidgen/protocol';
import { sharedSerializers } from '../../src/api/shared-serializers.ts';

// One compiled serializer per response shape: routes that describe the same shape in other words
// share it, and what each answers is unchanged; a property named `description` is part of the shape.
describe('shared response serializers', () => {
  it('shares one serializer between schemas that differ only in their descriptions', async () => {
    const factory = sharedSerializers();
    let compiled = 0;
    const counting: typeof factory = (externals, options) => {
      const compile = factory(externals, options);
      const seen = new Set<unknown>();
      return (route) => {
        const serializer = compile(route);
        if (!seen.has(serializer)) seen.add(serializer), compiled++;
        return serializer;
      };
    };
    const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: counting } } });
    const shape = Type.Object({ id: Type.String(), status: Type.String() });
    const withDescription = Type.Object({ id: Type.String(), status: Type.String(), description: Type.String() });
    const answer = { id: 'x', status: 'done', description: 'kept', extra: 'dropped' };
    app.get('/a', { schema: { response: { 200: { ...shape, description: 'one way' } } } }, async () => answer);
    app.get('/b', { schema: { response: { 200: { ...shape, description: 'another' } } } }, async () => answer);
    app.get('/c', { schema: { response: { 200: withDescription } } }, async () => answer);
    await app.ready();
    const bodies = await Promise.all(['/a', '/b', '/c'].map(async (url) => (await app.inject({ url })).json()));
    assert.deepEqual(bodies[0], { id: 'x', status: 'done' });
    assert.deepEqual(bodies[1], { id: 'x', status: 'done' });
    assert.deepEqual(bodies[2], { id: 'x', status: 'done', description: 'kept' });
    assert.equal(compiled, 2, 'the two described alike share one; the shape with a `description` field has its own');
    await app.close();
  });
});
