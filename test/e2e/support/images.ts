import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** A photo-like test image: a gradient with a few shapes, so motion is visible in frames. */
export async function makeImage(width: number, height: number, format: 'png' | 'jpeg' = 'png'): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#1d4e89"/><stop offset="1" stop-color="#f79256"/></linearGradient></defs>
    <rect width="100%" height="100%" fill="url(#g)"/>
    <circle cx="${width * 0.3}" cy="${height * 0.4}" r="${Math.min(width, height) * 0.15}" fill="#fbd1a2"/>
    <rect x="${width * 0.6}" y="${height * 0.5}" width="${width * 0.25}" height="${height * 0.3}" fill="#00b2ca"/>
  </svg>`;
  const image = sharp(Buffer.from(svg));
  return format === 'png' ? image.png().toBuffer() : image.jpeg({ quality: 85 }).toBuffer();
}

export function dataUri(bytes: Buffer, mime: 'image/png' | 'image/jpeg'): string {
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

/** Serves images on loopback: `/photo.png`, `/photo.jpg`; anything else is 404. */
export async function startImageServer(): Promise<{ url: string; close(): Promise<void> }> {
  const png = await makeImage(800, 600, 'png');
  const jpeg = await makeImage(600, 800, 'jpeg');
  const server: Server = createServer((req, res) => {
    const body = req.url === '/photo.png' ? png : req.url === '/photo.jpg' ? jpeg : undefined;
    if (!body) return res.writeHead(404).end('not found');
    res.writeHead(200, {
      'content-type': req.url!.endsWith('png') ? 'image/png' : 'image/jpeg',
      'content-length': body.length,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
