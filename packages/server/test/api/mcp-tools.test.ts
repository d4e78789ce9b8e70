import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MCP_FIELD_SOURCES, type TSchema } from '@vidgen/protocol';
import { TOOLS } from '../../src/api/mcp/mcp-tools.ts';

type Schema = { properties?: Record<string, Schema>; description?: string; [key: string]: unknown };

/**
 * Every field of a tool's arguments; an object the MCP composes itself (a source video, whose
 * sources are named `video.id`, `video.url`) is taken field by field.
 */
function fieldsOf(schema: Schema, sources: Record<string, unknown>): Map<string, Schema> {
  const fields = new Map<string, Schema>();
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const composed = Object.keys(sources).some((key) => key.startsWith(`${name}.`));
    if (!composed) fields.set(name, field);
    else for (const [sub, inner] of Object.entries(field.properties ?? {})) fields.set(`${name}.${sub}`, inner);
  }
  return fields;
}

/** A schema as JSON without its descriptions: the type and constraints a field is checked with. */
function shape(schema: unknown): string {
  return JSON.stringify(schema, (key, value) => (key === 'description' ? undefined : value));
}

describe('MCP tool schemas', () => {
  it('every tool argument is a field of a dialect, with the same type and constraints', () => {
    for (const tool of TOOLS) {
      const sources = MCP_FIELD_SOURCES[tool.name];
      assert.ok(sources, `${tool.name} names where its fields come from`);
      const fields = fieldsOf(tool.inputSchema as Schema, sources);
      assert.deepEqual([...fields.keys()].sort(), Object.keys(sources).sort(), tool.name);
      for (const [name, field] of fields) {
        const [dialect, wireName] = sources[name];
        const original = (dialect.properties as Record<string, TSchema>)[wireName];
        assert.ok(original, `${tool.name}.${name}: the dialect has a field ${wireName}`);
        assert.equal(shape(field), shape(original), `${tool.name}.${name} is ${wireName} of its dialect`);
      }
    }
  });

  it('a changed field is caught', () => {
    const [dialect, wireName] = MCP_FIELD_SOURCES.generate_video.duration;
    const original = (dialect.properties as Record<string, TSchema>)[wireName];
    assert.notEqual(shape({ ...original, maximum: 60 }), shape(original));
  });
});
