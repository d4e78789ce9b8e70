import { Type } from '@sinclair/typebox';
import { StringEnum } from './common.ts';

/** The query of a signed download link, as the poll answer hands it out; absent when the key is sent instead. */
export const SignedLinkQuery = Type.Object({
  expires: Type.Optional(Type.String({ description: 'Unix seconds after which the link is refused.' })),
  kid: Type.Optional(Type.String({ description: 'The API key the link was signed for; revoking it ends the link.' })),
  sig: Type.Optional(Type.String({ description: 'The signature; with it, no API key is needed.' })),
});

/** The images a finished task has beside its video (OpenAI's content-variant convention). */
export const CONTENT_VARIANTS = ['thumbnail', 'spritesheet'] as const;
export type ContentVariant = (typeof CONTENT_VARIANTS)[number];

/** The media type each variant is stored and served with; the OpenAPI document describes the same. */
export const CONTENT_VARIANT_MEDIA_TYPES = {
  thumbnail: 'image/webp',
  spritesheet: 'image/jpeg',
} as const satisfies Record<ContentVariant, string>;

/** The bytes of a verified MP4 (H.264): the content without `variant`. */
export const Mp4Video = Type.String({ format: 'binary', description: 'Without `variant`: the verified MP4 (H.264).' });

/** `variant=thumbnail`: the poster. */
export const PosterImage = Type.String({
  format: 'binary',
  description: '`variant=thumbnail`: a poster frame taken from the video, WebP, at most 640 px wide.',
});

/** `variant=spritesheet`: frames for a seek bar's previews. */
export const SpriteSheetImage = Type.String({
  format: 'binary',
  description: '`variant=spritesheet`: ten frames spread over the video in 5×2 tiles 160 px wide, JPEG.',
});

/** The query of `GET /v1/videos/{id}/content`: a signed link's parameters and the variant. */
export const ContentQuery = Type.Composite([
  SignedLinkQuery,
  Type.Object({
    variant: Type.Optional(
      StringEnum(['video', ...CONTENT_VARIANTS], {
        description:
          '`video` (the default) for the MP4; instead of it: `thumbnail`, a poster frame (WebP, at most 640 px ' +
          'wide), or `spritesheet`, ten frames spread over the video in 5×2 tiles 160 px wide (JPEG).',
      }),
    ),
  }),
]);
