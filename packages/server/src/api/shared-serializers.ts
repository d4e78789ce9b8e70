import {
  SerializerSelector,
  type Serializer,
  type SerializerCompiler,
  type SerializerFactory,
} from '@fastify/fast-json-stringify-compiler';

/**
 * Fastify's own response serializer factory, sharing one compiled serializer among routes whose
 * response schemas are the same. Every route answers errors with the same few schemas, and the
 * dialects share their task shapes, so most of the ~900 schemas a full app compiles are repeats;
 * compiling each once keeps that code out of an idle server (docs/performance.md). A serializer
 * depends only on its schema and the app's options, which are fixed per factory, so sharing it
 * changes no answer.
 */
export function sharedSerializers(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options): SerializerCompiler => {
    const compile = build(externalSchemas, options);
    const compiled = new Map<string, Serializer>();
    return (route) => {
      const key = JSON.stringify(route.schema, withoutDescriptions);
      let serializer = compiled.get(key);
      if (!serializer) {
        serializer = compile(route);
        compiled.set(key, serializer);
      }
      return serializer;
    };
  };
}

/**
 * A schema's words for people (`description`, always a string) change no serialized byte, and the
 * same shape is described once per route (`described(…)`): they are left out of the key. A property
 * named `description` is a schema, an object, and stays.
 */
function withoutDescriptions(key: string, value: unknown): unknown {
  return key === 'description' && typeof value === 'string' ? undefined : value;
}
