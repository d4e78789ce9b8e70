import { Type } from '@sinclair/typebox';

/** The query of a signed download link, as the poll answer hands it out; absent when the key is sent instead. */
export const SignedLinkQuery = Type.Object({
  expires: Type.Optional(Type.String({ description: 'Unix seconds after which the link is refused.' })),
  kid: Type.Optional(Type.String({ description: 'The API key the link was signed for; revoking it ends the link.' })),
  sig: Type.Optional(Type.String({ description: 'The signature; with it, no API key is needed.' })),
});

/** The bytes of a verified MP4 (H.264). */
export const Mp4Video = Type.String({ format: 'binary' });
