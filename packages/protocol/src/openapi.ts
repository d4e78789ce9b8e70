import { Type, type TSchema } from '@sinclair/typebox';
import { ErrorBody, TaskError } from './common.ts';
import { FamilyACreateBody, FamilyACreateResponse, FamilyAEditBody, FamilyAExtensionBody, FamilyATask } from './family-a.ts';
import { FamilyBCreateBody, FamilyBCreateResponse, FamilyBTask } from './family-b.ts';
import { ModelList, ModelObject } from './models.ts';
import { FileDeleted, FileObject } from './files.ts';

const json = (schema: TSchema) => ({ 'application/json': { schema } });
const errors = {
  '400': { description: 'Invalid request; `error.param` names the field', content: json(ErrorBody) },
  '401': { description: 'Missing, unknown or revoked API key', content: json(ErrorBody) },
};
const idempotencyKey = {
  name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 },
  description: 'Same key and body replay the first answer (`Idempotent-Replayed: true`); another body is 422; in flight is 409.',
};
const wait = { name: 'wait', in: 'query', required: false, schema: { type: 'number', minimum: 0, maximum: 60 }, description: 'Long-poll: answer when the task changes or after this many seconds.' };
const pathId = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const listParams = ['limit', 'after', 'status', 'model', 'created_after', 'idempotency_key'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } }));
const list = (item: TSchema) => Type.Object({ object: Type.Literal('list'), data: Type.Array(item), has_more: Type.Boolean(), last_id: Type.Union([Type.String(), Type.Null()]) });
const create = (summary: string, body: TSchema, answer: TSchema) => ({
  summary, parameters: [idempotencyKey], requestBody: { required: true, content: json(body) },
  responses: { '200': { description: 'Task created (or replayed)', content: json(answer) }, ...errors, '409': { description: 'Same key still in flight', content: json(ErrorBody) }, '422': { description: 'Key reused with another body', content: json(ErrorBody) } },
});

/** The OpenAPI document of the vidgen API, built from the same schemas that validate requests. */
export function buildOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'vidgen', version: '1', description: 'Asynchronous video generation: family A (xAI style) and family B (new-api style).' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, schemas: { ErrorBody, TaskError } },
    security: [{ bearer: [] }],
    paths: {
      '/v1/models': { get: { summary: 'Models the caller may use', responses: { '200': { description: 'List', content: json(ModelList) }, ...errors } } },
      '/v1/models/{id}': { get: { summary: 'One model', parameters: [pathId('id')], responses: { '200': { description: 'Model', content: json(ModelObject) }, ...errors } } },
      '/v1/videos/generations': { post: create('Family A: animate a first frame', FamilyACreateBody, FamilyACreateResponse) },
      '/v1/videos/edits': { post: create('Family A: edit a video (models that offer it)', FamilyAEditBody, FamilyACreateResponse) },
      '/v1/videos/extensions': { post: create('Family A: extend a video (models that offer it)', FamilyAExtensionBody, FamilyACreateResponse) },
      '/v1/videos': { get: { summary: 'Family A: list tasks, newest first', parameters: listParams, responses: { '200': { description: 'Page', content: json(list(FamilyATask)) }, ...errors } } },
      '/v1/videos/{request_id}': {
        get: {
          summary: 'Family A: poll a task', parameters: [pathId('request_id'), wait],
          responses: { '200': { description: 'Finished (done, failed, expired)', content: json(FamilyATask) }, '202': { description: 'Pending', content: json(FamilyATask) }, ...errors },
        },
      },
      '/v1/video/generations': {
        post: create('Family B: text-to-video or image-to-video', FamilyBCreateBody, FamilyBCreateResponse),
        get: { summary: 'Family B: list tasks, newest first', parameters: listParams, responses: { '200': { description: 'Page', content: json(list(FamilyBTask)) }, ...errors } },
      },
      '/v1/videos/{request_id}/cancel': {
        post: { summary: 'Family A: cancel a queued or running task (ends failed, code canceled)', parameters: [pathId('request_id')], responses: { '200': { description: 'Task', content: json(FamilyATask) }, ...errors, '409': { description: 'Already ended', content: json(ErrorBody) } } },
      },
      '/v1/video/generations/{task_id}/cancel': {
        post: { summary: 'Family B: cancel a queued or running task (ends FAILURE, code canceled)', parameters: [pathId('task_id')], responses: { '200': { description: 'Task', content: json(FamilyBTask) }, ...errors, '409': { description: 'Already ended', content: json(ErrorBody) } } },
      },
      '/v1/video/generations/{task_id}': { get: { summary: 'Family B: poll a task', parameters: [pathId('task_id'), wait], responses: { '200': { description: 'Task', content: json(FamilyBTask) }, ...errors } } },
      '/v1/videos/{task_id}/content': {
        get: {
          summary: 'Download the MP4 (Bearer key or signed link; Range supported)',
          parameters: [pathId('task_id'), ...['expires', 'kid', 'sig'].map((name) => ({ name, in: 'query', required: false, schema: { type: 'string' } }))],
          security: [{ bearer: [] }, {}],
          responses: {
            '200': { description: 'The video', content: { 'video/mp4': { schema: { type: 'string', format: 'binary' } } } },
            '206': { description: 'A byte range of the video' },
            '403': { description: 'Signed link invalid or expired', content: json(ErrorBody) },
            '409': { description: 'Not finished', content: json(ErrorBody) },
            '410': { description: 'Expired', content: json(ErrorBody) },
          },
        },
      },
      '/v1/files': {
        post: {
          summary: 'Upload a JPEG or PNG (multipart field `file`)',
          requestBody: { content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string' } }, required: ['file'] } } } },
          responses: { '200': { description: 'File', content: json(FileObject) }, ...errors, '413': { description: 'Too large', content: json(ErrorBody) } },
        },
      },
      '/v1/files/{id}': {
        get: { summary: 'File metadata', parameters: [pathId('id')], responses: { '200': { description: 'File', content: json(FileObject) }, ...errors } },
        delete: { summary: 'Delete a file', parameters: [pathId('id')], responses: { '200': { description: 'Deleted', content: json(FileDeleted) }, ...errors } },
      },
      '/healthz': { get: { summary: 'Liveness, no auth', security: [], responses: { '200': { description: 'OK' } } } },
    },
  };
}
